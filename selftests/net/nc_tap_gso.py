#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hand the stack netcoll-typed frames through a tap device, as GSO skbs
of a kind netcoll never makes, or as plain frames.

  nc_tap_gso.py TAP CASE COUNT [ETHERTYPE]

CASE:
  tcp    a virtio-net header calling each frame a TCPv4 GSO skb (checksum
         offload asked, so no IP header is looked for): the receive path
         must drop it as not netcoll's kind (drop_type), not cut it
  udp    the same as UDP fragmentation offload (UFO)
  big    tcp, 4000 bytes, beyond the device's MTU
  plain  no GSO: the same bytes as an ordinary frame (version 0: drop_version)

A tap with IFF_VNET_HDR is how a local user or a guest hands the kernel a
GSO skb of any ethertype: the skb reaches netcoll's packet_type whole.
The frames go to the tap's own address from a locally administered one;
after the Ethernet header, zeros (wire version 0).
"""
import fcntl
import os
import struct
import sys

TUNSETIFF = 0x400454CA
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000
# struct virtio_net_hdr: flags, gso_type, hdr_len, gso_size, csum_start,
# csum_offset (host order: tun's default for a little-endian host)
VNET_HDR = "<BBHHHH"
F_NEEDS_CSUM = 1
GSO_NONE, GSO_TCPV4, GSO_UDP = 0, 1, 3
ETH_HLEN = 14


def main():
    tap, case, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ethertype = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0x88B5
    with open("/sys/class/net/%s/address" % tap) as f:
        dst = bytes.fromhex(f.read().strip().replace(":", ""))
    src = bytes.fromhex("020000c0ffee")
    size = 4000 if case == "big" else 128
    frame = dst + src + struct.pack("!H", ethertype) + bytes(size - ETH_HLEN)
    if case == "plain":
        hdr = struct.pack(VNET_HDR, 0, GSO_NONE, 0, 0, 0, 0)
    elif case in ("tcp", "big", "udp"):
        # the checksum at offset 16 of a 20-byte "transport header" right
        # after the Ethernet header: inside the frame, as tun checks; the
        # segment size below the payload, or the skb is no GSO one
        gso = GSO_UDP if case == "udp" else GSO_TCPV4
        hdr = struct.pack(VNET_HDR, F_NEEDS_CSUM, gso, ETH_HLEN + 20, 50,
                          ETH_HLEN, 16)
    else:
        sys.exit("unknown case %s" % case)
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", tap.encode(),
                                           IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
    sent = 0
    for _ in range(count):
        try:
            os.write(fd, hdr + frame)
            sent += 1
        except OSError as e:
            print("write: %s" % e, file=sys.stderr)
    os.close(fd)
    print(sent)
    return 0 if sent == count else 1


if __name__ == "__main__":
    sys.exit(main())
