package io.mssqlcdc.standin.tds;

import java.io.IOException;

/**
 * A response message written as it is produced: tokens accumulate and leave in full packets of
 * the negotiated size ({@link Tds#PKT_TABULAR_RESULT}); {@link #end()} sends the last packet with
 * end-of-message. Tokens may straddle packets, as the protocol allows.
 */
public final class TokenStream {
  private final PacketIo io;
  private final ByteWriter pending = new ByteWriter(8192);
  private boolean ended;

  public TokenStream(PacketIo io) {
    this.io = io;
  }

  /** Appends {@code token}, sending every full packet. */
  public void write(ByteWriter token) throws IOException {
    byte[] b = token.array();
    int n = token.size();
    int off = 0;
    int chunk = io.packetSize() - Tds.HEADER_LENGTH;
    while (off < n) {
      if (pending.size() == chunk) {
        sendPending(0);
      }
      int take = Math.min(chunk - pending.size(), n - off);
      pending.bytes(b, off, take);
      off += take;
    }
  }

  private void sendPending(int status) throws IOException {
    io.writePacket(Tds.PKT_TABULAR_RESULT, status, pending.array(), 0, pending.size());
    pending.reset();
  }

  /** Sends what is buffered as a packet without ending the message, so the client sees every row written so far. */
  public void flush() throws IOException {
    if (pending.size() > 0) {
      sendPending(0);
    }
    io.flush();
  }

  /** Sends the last packet (end of message) and flushes. */
  public void end() throws IOException {
    if (!ended) {
      ended = true;
      sendPending(Tds.STATUS_EOM);
      io.flush();
    }
  }

  public boolean ended() {
    return ended;
  }
}
