package io.mssqlcdc.standin.tds;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * TDS packets over a byte stream (2.2.3): an 8-byte header (type, status, big-endian length,
 * SPID, packet id, window) and data. A message is the packets up to the one with
 * {@link Tds#STATUS_EOM}. The streams can be swapped (TLS starts and, with login-only encryption,
 * stops mid-connection).
 */
public final class PacketIo {
  private InputStream in;
  private OutputStream out;
  private final int spid;
  private int packetSize = 4096;
  private int packetId = 1;

  public PacketIo(InputStream in, OutputStream out, int spid) {
    this.in = in;
    this.out = out;
    this.spid = spid;
  }

  /** A whole message from the client. */
  public record Message(int type, int status, byte[] data) {}

  public void streams(InputStream in, OutputStream out) {
    this.in = in;
    this.out = out;
  }

  public InputStream in() {
    return in;
  }

  public OutputStream out() {
    return out;
  }

  public void packetSize(int size) {
    this.packetSize = size;
  }

  public int packetSize() {
    return packetSize;
  }

  /** The next whole message, or null when the client closed the connection between messages. */
  public Message readMessage() throws IOException {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    byte[] header = new byte[Tds.HEADER_LENGTH];
    int type = -1;
    while (true) {
      if (!readFully(header, type < 0)) {
        return null;
      }
      int t = header[0] & 0xFF;
      int status = header[1] & 0xFF;
      int length = (header[2] & 0xFF) << 8 | (header[3] & 0xFF);
      if (length < Tds.HEADER_LENGTH) {
        throw new TdsProtocolException("packet length " + length + " is shorter than its header");
      }
      if (type < 0) {
        type = t;
      } else if (t != type && t != Tds.PKT_ATTENTION) {
        throw new TdsProtocolException("packet of type " + t + " inside a message of type " + type);
      }
      byte[] body = new byte[length - Tds.HEADER_LENGTH];
      if (!readFully(body, false)) {
        throw new EOFException("connection closed inside a packet");
      }
      data.write(body);
      if ((status & Tds.STATUS_EOM) != 0) {
        return new Message(type, status, data.toByteArray());
      }
    }
  }

  /** Reads {@code b} whole; false on EOF before its first byte when {@code eofAllowed}. */
  private boolean readFully(byte[] b, boolean eofAllowed) throws IOException {
    int n = 0;
    while (n < b.length) {
      int r = in.read(b, n, b.length - n);
      if (r < 0) {
        if (n == 0 && eofAllowed) {
          return false;
        }
        throw new EOFException("connection closed after " + n + " of " + b.length + " bytes");
      }
      n += r;
    }
    return true;
  }

  /** Writes {@code data} as one message of {@code type}, split into packets of the negotiated size. */
  public void writeMessage(int type, byte[] data) throws IOException {
    int chunk = packetSize - Tds.HEADER_LENGTH;
    int off = 0;
    do {
      int n = Math.min(chunk, data.length - off);
      boolean last = off + n >= data.length;
      writePacket(type, last ? Tds.STATUS_EOM : 0, data, off, n);
      off += n;
    } while (off < data.length);
    out.flush();
  }

  /** One packet; does not flush. */
  public void writePacket(int type, int status, byte[] data, int off, int n) throws IOException {
    byte[] header = {(byte) type, (byte) status, (byte) ((n + 8) >>> 8), (byte) (n + 8), (byte) (spid >>> 8),
        (byte) spid, (byte) packetId, 0};
    packetId = (packetId + 1) & 0xFF;
    out.write(header);
    out.write(data, off, n);
  }

  public void flush() throws IOException {
    out.flush();
  }
}
