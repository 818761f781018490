#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The order in which this host's alltoall sends to its peers, seen on the wire.

nc_wire_order.py IFACE COMM PEERS [SECONDS]

Captures the netcoll frames IFACE sends (an AF_PACKET socket on ETH_P_ALL:
a socket bound to one ethertype sees only received frames) and prints the
destination ranks of communicator COMM's DATA frames in the order each was
first sent to, once PEERS distinct ranks were seen (or SECONDS passed,
default 30: then it prints what it saw and fails).  It prints "ready" on
stderr once the socket is open, so that the caller starts the alltoall
after.  Field offsets: struct netcoll_hdr in uapi/linux/netcoll.h, after a
14-byte Ethernet header.
"""
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
NETCOLL_ETHERTYPE = 0x88B5
NETCOLL_T_DATA = 1
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
ETH_HLEN = 14
HDR_TYPE = ETH_HLEN + 1		# netcoll_hdr.type
HDR_COMM = ETH_HLEN + 4		# netcoll_hdr.comm_id (be32)
HDR_DST = ETH_HLEN + 32		# netcoll_hdr.dst_rank (be32)


def main():
    iface, comm, peers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    deadline = time.monotonic() + (float(sys.argv[4]) if len(sys.argv) > 4 else 30)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    # every frame on IFACE queues here: room for a whole run's, so that a
    # slow interpreter loses none (SO_RCVBUFFORCE: root, above rmem_max)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
    s.bind((iface, ETH_P_ALL))
    s.settimeout(0.5)
    print("ready", file=sys.stderr, flush=True)
    order = []
    while len(order) < peers and time.monotonic() < deadline:
        try:
            frame, addr = s.recvfrom(2048)
        except socket.timeout:
            continue
        if addr[2] != PACKET_OUTGOING or len(frame) < HDR_DST + 4:
            continue
        if struct.unpack_from("!H", frame, 12)[0] != NETCOLL_ETHERTYPE:
            continue
        if frame[HDR_TYPE] != NETCOLL_T_DATA:
            continue
        if struct.unpack_from("!I", frame, HDR_COMM)[0] != comm:
            continue
        dst = struct.unpack_from("!I", frame, HDR_DST)[0]
        if dst not in order:
            order.append(dst)
    print(" ".join(str(r) for r in order))
    return 0 if len(order) == peers else 1


if __name__ == "__main__":
    sys.exit(main())
