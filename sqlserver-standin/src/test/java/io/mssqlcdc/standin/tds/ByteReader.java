package io.mssqlcdc.standin.tds;

import java.nio.charset.StandardCharsets;

/** Reads TDS data from a byte array: integers little-endian unless the name says otherwise, text UTF-16LE. */
public final class ByteReader {
  private final byte[] buf;
  private int pos;
  private final int end;

  public ByteReader(byte[] buf) {
    this(buf, 0, buf.length);
  }

  public ByteReader(byte[] buf, int offset, int length) {
    this.buf = buf;
    this.pos = offset;
    this.end = offset + length;
  }

  private void need(int n) {
    if (pos + n > end) {
      throw new TdsProtocolException("truncated TDS data: need " + n + " bytes at " + pos + ", have " + (end - pos));
    }
  }

  public int u8() {
    need(1);
    return buf[pos++] & 0xFF;
  }

  public int u16() {
    need(2);
    int v = (buf[pos] & 0xFF) | (buf[pos + 1] & 0xFF) << 8;
    pos += 2;
    return v;
  }

  public int u16be() {
    need(2);
    int v = (buf[pos] & 0xFF) << 8 | (buf[pos + 1] & 0xFF);
    pos += 2;
    return v;
  }

  public int u32() {
    return (int) uN(4);
  }

  public long u64() {
    return uN(8);
  }

  public long uN(int n) {
    need(n);
    long v = 0;
    for (int i = 0; i < n; i++) {
      v |= (long) (buf[pos + i] & 0xFF) << (8 * i);
    }
    pos += n;
    return v;
  }

  public byte[] bytes(int n) {
    need(n);
    byte[] b = new byte[n];
    System.arraycopy(buf, pos, b, 0, n);
    pos += n;
    return b;
  }

  /** {@code chars} UTF-16LE code units. */
  public String utf16(int chars) {
    need(chars * 2);
    String s = new String(buf, pos, chars * 2, StandardCharsets.UTF_16LE);
    pos += chars * 2;
    return s;
  }

  public String bVarchar() {
    return utf16(u8());
  }

  public String usVarchar() {
    return utf16(u16());
  }

  public void skip(int n) {
    need(n);
    pos += n;
  }

  public int position() {
    return pos;
  }

  public void position(int p) {
    pos = p;
  }

  public int remaining() {
    return end - pos;
  }
}
