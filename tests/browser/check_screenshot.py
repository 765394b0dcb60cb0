#!/usr/bin/env python3
"""Checks a screenshot of the HTML report: a PNG of the expected size that is
not blank and shows the chart colours (base #1c7ed6 and head #d9480f marks).
The PNG is decoded here with zlib: 8-bit RGB or RGBA, not interlaced, all five
row filters. Usage: check_screenshot.py FILE WIDTH HEIGHT"""
import struct
import sys
import zlib

BASE = (0x1C, 0x7E, 0xD6)
HEAD = (0xD9, 0x48, 0x0F)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour {colour})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def near(px, colour, tolerance=24):
    return all(abs(px[i] - colour[i]) <= tolerance for i in range(3))


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w, h, ch, rows = decode(path)
    if (w, h) != (want_w, want_h):
        raise SystemExit(f"test-browser: FAILED: screenshot is {w}x{h}, expected {want_w}x{want_h}")
    non_white = base = head = 0
    for row in rows:
        for x in range(0, w * ch, ch):
            px = row[x:x + 3]
            if px[0] < 240 or px[1] < 240 or px[2] < 240:
                non_white += 1
            if near(px, BASE):
                base += 1
            elif near(px, HEAD):
                head += 1
    total = w * h
    print(f"test-browser: {w}x{h}, {100 * non_white / total:.1f}% non-white, "
          f"{base} base-coloured and {head} head-coloured pixels")
    if non_white < total * 0.03:
        raise SystemExit("test-browser: FAILED: the screenshot is (nearly) blank")
    if base < 200 or head < 200:
        raise SystemExit("test-browser: FAILED: the chart colours are missing")
    print("test-browser: passed")


if __name__ == "__main__":
    main()
