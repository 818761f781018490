// SPDX-License-Identifier: BSD-2-Clause
/*
 * A program as a user of the installed packages writes it: only the
 * installed public header and `pkg-config --cflags --libs netcoll`.
 * Binds to communicator ID as RANK and runs an allreduce and an alltoall
 * whose results every rank can predict; prints what it checked.
 *
 *   app_collective ID RANK
 */
#include <netcoll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 1000
#define BLOCK 4096

int main(int argc, char **argv)
{
	static uint8_t sbuf[64 * BLOCK], rbuf[64 * BLOCK];
	int64_t in[COUNT], out[COUNT];
	uint32_t id, rank, size, i, j;
	nc_endpoint *ep;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ID RANK\n", argv[0]);
		return 2;
	}
	id = strtoul(argv[1], NULL, 0);
	rank = strtoul(argv[2], NULL, 0);
	err = nc_open(&ep, NULL);
	if (!err)
		err = nc_bind(ep, id, rank);
	if (err) {
		fprintf(stderr, "open/bind: %s\n", nc_strerror(err));
		return 1;
	}
	size = nc_comm_size(ep);
	if (size < 1 || size > 64) {
		fprintf(stderr, "unexpected size %u\n", size);
		return 1;
	}
	for (i = 0; i < COUNT; i++)
		in[i] = (int64_t)(rank + 1) * (i + 1);
	err = nc_allreduce(ep, in, out, COUNT, NC_DT_INT64, NC_OP_SUM);
	if (err) {
		fprintf(stderr, "allreduce: %s\n", nc_strerror(err));
		return 1;
	}
	for (i = 0; i < COUNT; i++) {
		if (out[i] != (int64_t)size * (size + 1) / 2 * (i + 1)) {
			fprintf(stderr, "allreduce: element %u is %lld\n", i,
				(long long)out[i]);
			return 1;
		}
	}
	/* block j of rank r holds bytes (r * 31 + j * 7 + k) & 0xff */
	for (j = 0; j < size; j++)
		for (i = 0; i < BLOCK; i++)
			sbuf[j * BLOCK + i] = (uint8_t)(rank * 31 + j * 7 + i);
	memset(rbuf, 0, sizeof(rbuf));
	err = nc_alltoall(ep, sbuf, rbuf, BLOCK);
	if (err) {
		fprintf(stderr, "alltoall: %s\n", nc_strerror(err));
		return 1;
	}
	for (j = 0; j < size; j++)
		for (i = 0; i < BLOCK; i++)
			if (rbuf[j * BLOCK + i] != (uint8_t)(j * 31 + rank * 7 + i)) {
				fprintf(stderr, "alltoall: byte %u from rank %u wrong\n",
					i, j);
				return 1;
			}
	printf("rank %u of %u: allreduce of %d int64 and alltoall of %d-byte blocks verified\n",
	       rank, size, COUNT, BLOCK);
	nc_close(ep);
	return 0;
}
