#!/bin/bash
# Barrier and alltoall on 8 hosts behind one switch, every byte verified,
# sizes from 1 B to 1 MiB per peer, MTU multiples and not.
T_NAME=alltoall
source "$(dirname "$0")/lib.sh"

SIZES=1,2,7,64,1443,1444,1445,1500,2888,4096,10000,65536,65537,262144,1048576

cluster_star 8 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
t_check "attach + comm add on 8 hosts" nc_comm_up 1

t_check "barrier x20" nc_check_all barrier --comm 1 --op barrier --iters 20
t_check "alltoall sizes $SIZES" nc_check_all a2a --comm 1 --op alltoall --bytes-list $SIZES
t_check "alltoall 4 KiB x50 (sequence numbers, early frames)" \
	nc_check_all a2a_iter --comm 1 --op alltoall --bytes 4096 --iters 50
t_check "alltoall linear order explicitly" \
	nc_check_all a2a_lin --comm 1 --op alltoall --bytes 3000 --algo linear
t_check "alltoall count 0" nc_check_all a2a0 --comm 1 --op alltoall --bytes 0
drops=$(on h1 "$NCTL" -j stats | python3 -c \
	'import json,sys; print(" ".join("%s=%d" % kv for kv in json.load(sys.stdin).items() if kv[0].startswith("drop_") and kv[1]) or "none")')
t_check "no frame dropped on a clean network (h1: $drops)" test "$drops" = none

t_check "rmmod with devices attached and communicators alive" nc_unload
cluster_down
t_done
