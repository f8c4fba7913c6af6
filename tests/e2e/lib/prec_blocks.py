# SPDX-License-Identifier: MIT
"""A prec.data file's blocks for the end-to-end tests' edits (FORMAT.md 3):
blocks(b) walks them, fix(b, off, stored) makes a stored block's payload
CRC and header CRC right again after its bytes were changed."""
import struct
import zlib


def blocks(b):
    """(offset, type, codec, flags, stored_len) of each block of b."""
    off = 64
    while off + 32 <= len(b):
        t, codec, flags, stored, _raw = struct.unpack_from("<HBBII", b, off + 4)
        yield off, t, codec, flags, stored
        off += 32 + stored


def fix(b, off, stored):
    struct.pack_into("<I", b, off + 16, zlib.crc32(b[off + 32:off + 32 + stored]))
    struct.pack_into("<I", b, off + 28, zlib.crc32(b[off:off + 28]))
