package io.mssqlcdc.standin;

import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.standin.Answer.RowSource;
import io.mssqlcdc.standin.Answer.Rows;
import io.mssqlcdc.standin.Faults.Fault;
import io.mssqlcdc.standin.tds.ByteWriter;
import io.mssqlcdc.standin.tds.Login7;
import io.mssqlcdc.standin.tds.PacketIo;
import io.mssqlcdc.standin.tds.PacketIo.Message;
import io.mssqlcdc.standin.tds.Prelogin;
import io.mssqlcdc.standin.tds.Requests;
import io.mssqlcdc.standin.tds.Requests.Param;
import io.mssqlcdc.standin.tds.Requests.Rpc;
import io.mssqlcdc.standin.tds.SqlType;
import io.mssqlcdc.standin.tds.Tds;
import io.mssqlcdc.standin.tds.TokenStream;
import io.mssqlcdc.standin.tds.Tokens;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One client connection: PRELOGIN (with TLS when negotiated), LOGIN7, then requests answered one
 * at a time. A reader thread takes the client's messages off the socket as they come, so an
 * ATTENTION (a cancel, or the driver's query timeout) reaches the session while it streams rows
 * or waits in a delay fault; the session then stops and acknowledges with DONE(ATTN), as SQL
 * Server does.
 */
final class Session implements Runnable {
  private static final Message EOF = new Message(-1, 0, new byte[0]);
  private static final AtomicInteger SPIDS = new AtomicInteger(51);

  private final SqlServerStandIn server;
  private final Socket socket;
  private final int spid = SPIDS.getAndIncrement();
  private final BlockingQueue<Message> queue = new LinkedBlockingQueue<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition attention = lock.newCondition();
  /** Attentions received and not yet acknowledged. */
  private int pendingAttentions;
  /** Attentions acknowledged inside a response whose queue marker is still to come. */
  private int ackedInStream;
  private final Map<Integer, String> prepared = new HashMap<>();
  private int nextHandle = 1;
  private PacketIo io;
  private FakeBackend db;
  private Answers answers;
  private TableQuery.Isolation isolation = TableQuery.Isolation.READ_COMMITTED;
  private long lockTimeoutMs = -1;
  private volatile boolean closed;

  Session(SqlServerStandIn server, Socket socket) {
    this.server = server;
    this.socket = socket;
  }

  TableQuery.Isolation isolation() {
    return isolation;
  }

  void isolation(TableQuery.Isolation i) {
    isolation = i;
  }

  long lockTimeoutMs() {
    return lockTimeoutMs;
  }

  void lockTimeoutMs(long ms) {
    lockTimeoutMs = ms;
  }

  @Override
  public void run() {
    try {
      socket.setTcpNoDelay(true);
      io = new PacketIo(socket.getInputStream(), new java.io.BufferedOutputStream(socket.getOutputStream(), 65536), spid);
      if (!login()) {
        return;
      }
      db = new FakeBackend(server.fakeDirectory(), server.options());
      answers = new Answers(db, this);
      server.thread(this::readLoop, "standin-reader-" + spid);
      serve();
    } catch (IOException | InterruptedException e) {
      // the client went away, or the stand-in is closing
    } catch (RuntimeException e) {
      server.failure("session " + spid + " failed: " + e, e);
    } finally {
      close();
    }
  }

  void close() {
    closed = true;
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
    if (db != null) {
      db.close();
    }
  }

  /** Closes with a TCP reset (SO_LINGER 0), as a dropped network path or a killed server looks to the client. */
  private void reset() {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // reset or not, the connection goes
    }
    close();
  }

  // ---- login ----

  private boolean login() throws IOException {
    Message pre = io.readMessage();
    if (pre == null) {
      return false;
    }
    if (pre.type() != Tds.PKT_PRELOGIN) {
      throw new IllegalStateException("expected PRELOGIN, got packet type " + pre.type());
    }
    int asked = Prelogin.encryption(Prelogin.parse(pre.data()));
    int answer = server.options().tls() == null || asked == Prelogin.ENCRYPT_NOT_SUP ? Prelogin.ENCRYPT_NOT_SUP
        : asked == Prelogin.ENCRYPT_OFF ? Prelogin.ENCRYPT_OFF : Prelogin.ENCRYPT_ON;
    io.writeMessage(Tds.PKT_TABULAR_RESULT, Prelogin.response(answer));
    TlsChannel tls = null;
    if (answer != Prelogin.ENCRYPT_NOT_SUP) {
      tls = TlsChannel.handshake(server.options().tls(), io);
      io.streams(tls.in(), tls.out());
    }
    Message m = io.readMessage();
    if (m == null) {
      return false;
    }
    if (m.type() != Tds.PKT_LOGIN7) {
      throw new IllegalStateException("expected LOGIN7, got packet type " + m.type());
    }
    if (answer == Prelogin.ENCRYPT_OFF) {
      io.streams(tls.rawIn(), tls.rawOut()); // login-only encryption: the rest is in the clear
    }
    Login7 login = Login7.parse(m.data());
    server.logins().add(login);
    StandInOptions o = server.options();
    Optional<Fault> fault = server.faults().takeLogin();
    TokenStream out = new TokenStream(io);
    if (fault.isPresent() && fault.get().action() == Faults.Action.RESET) {
      reset();
      return false;
    }
    if (fault.isPresent() && fault.get().action() == Faults.Action.DELAY) {
      awaitAttention(fault.get().delay());
    }
    SqlError refused = fault.filter(f -> f.action() == Faults.Action.ERROR).map(Fault::error)
        .orElse(!o.user().equals(login.userName()) || !o.password().equals(login.password())
            ? SqlError.of(18456, o.database(), login.userName()) : null);
    if (refused == null && !login.database().isEmpty() && !login.database().equalsIgnoreCase(o.database())) {
      refused = SqlError.of(4060, login.database(), login.userName());
    }
    if (refused != null) {
      out.write(message(refused));
      if (refused.number() == 4060) {
        out.write(message(SqlError.of(18456, o.database(), login.userName())));
      }
      out.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_ERROR, 0, 0));
      out.end();
      close();
      return false;
    }
    out.write(Tokens.envChange(Tds.ENV_DATABASE, o.database(), "master"));
    out.write(Tokens.message(5701, 2, 0, "Changed database context to '" + o.database() + "'.", "standin", "", 1));
    out.write(Tokens.envCollation(Tds.DEFAULT_COLLATION));
    out.write(Tokens.envChange(Tds.ENV_LANGUAGE, "us_english", ""));
    out.write(Tokens.message(5703, 1, 0, "Changed language setting to us_english.", "standin", "", 1));
    out.write(Tokens.loginAck("Microsoft SQL Server"));
    int size = login.packetSize() <= 0 ? 4096 : Math.max(512, Math.min(32767, login.packetSize()));
    out.write(Tokens.envChange(Tds.ENV_PACKET_SIZE, Integer.toString(size), "4096"));
    if (!login.featureExtensions().isEmpty()) {
      out.write(Tokens.featureExtAckNone());
    }
    out.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_FINAL, 0, 0));
    out.end();
    io.packetSize(size);
    return true;
  }

  private static ByteWriter message(SqlError e) {
    return Tokens.message(e.number(), e.state(), e.severity(), e.getMessage(), "standin", "", 1);
  }

  // ---- requests ----

  private void readLoop() {
    try {
      while (!closed) {
        Message m = io.readMessage();
        if (m == null) {
          break;
        }
        if (m.type() == Tds.PKT_ATTENTION) {
          lock.lock();
          try {
            pendingAttentions++;
            attention.signalAll();
          } finally {
            lock.unlock();
          }
        }
        queue.put(m);
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      // connection gone
    } finally {
      queue.offer(EOF);
    }
  }

  private void serve() throws IOException, InterruptedException {
    while (!closed) {
      Message m = queue.poll(1, TimeUnit.SECONDS);
      if (m == null) {
        continue;
      }
      if (m == EOF) {
        return;
      }
      switch (m.type()) {
        case Tds.PKT_ATTENTION -> attentionMarker();
        case Tds.PKT_SQL_BATCH -> sqlBatch(Requests.sqlBatch(m.data()));
        case Tds.PKT_RPC -> {
          for (Rpc call : Requests.rpc(m.data())) {
            if (!rpc(call)) {
              break;
            }
          }
        }
        default -> {
          server.unknown("a request of TDS packet type 0x" + Integer.toHexString(m.type()) + " (only SQL batches, RPC"
              + " and attention are answered)");
          TokenStream out = new TokenStream(io);
          out.write(message(new SqlError(50000, 1, 16, "The stand-in does not answer TDS packet type " + m.type())));
          out.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_ERROR, 0, 0));
          out.end();
        }
      }
    }
  }

  private void attentionMarker() throws IOException {
    lock.lock();
    boolean ackNow;
    try {
      if (ackedInStream > 0) {
        ackedInStream--;
        ackNow = false;
      } else {
        pendingAttentions = Math.max(0, pendingAttentions - 1);
        ackNow = true;
      }
    } finally {
      lock.unlock();
    }
    if (ackNow) {
      server.attentionAcknowledged();
      TokenStream out = new TokenStream(io);
      out.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_ATTN, 0, 0));
      out.end();
    }
  }

  /** Whether an attention is waiting; if so it is taken (the caller acknowledges it in its response). */
  private boolean takeAttention() {
    lock.lock();
    try {
      if (pendingAttentions > 0) {
        pendingAttentions--;
        ackedInStream++;
        server.attentionAcknowledged();
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code d}; true (attention taken) when an attention ended the wait. */
  private boolean awaitAttention(Duration d) {
    long deadline = System.nanoTime() + d.toNanos();
    lock.lock();
    try {
      while (pendingAttentions == 0 && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        attention.awaitNanos(left);
      }
      if (pendingAttentions > 0) {
        pendingAttentions--;
        ackedInStream++;
        server.attentionAcknowledged();
        return true;
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** mssql-jdbc's own batch of discarded handles (statement pooling, serverPreparedStatementDiscardThreshold). */
  private static final java.util.regex.Pattern UNPREPARE_BATCH = java.util.regex.Pattern.compile("(?:EXEC sp_unprepare \\d+;)+");

  private void sqlBatch(String text) throws IOException {
    if (UNPREPARE_BATCH.matcher(text).matches()) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\d+").matcher(text);
      while (m.find()) {
        prepared.remove(Integer.parseInt(m.group()));
      }
      server.record(new SqlServerStandIn.Executed(null, "sp_unprepare batch", text, List.of()));
      TokenStream out = new TokenStream(io);
      out.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_FINAL, Tds.CMD_EXECUTE, 0));
      out.end();
      return;
    }
    execute("SQL batch", text, List.of(), false, null);
  }

  /** Runs one RPC call; false when the connection went away. */
  private boolean rpc(Rpc call) throws IOException {
    List<Param> p = call.params();
    switch (call.procName().toLowerCase(java.util.Locale.ROOT)) {
      case "sp_executesql" -> {
        String stmt = (String) p.get(0).value();
        return execute("sp_executesql", stmt, values(p, 2), true, null);
      }
      case "sp_prepexec" -> {
        String stmt = (String) p.get(2).value();
        int handle = nextHandle++;
        prepared.put(handle, stmt);
        return execute("sp_prepexec", stmt, values(p, 3), true, handle);
      }
      case "sp_prepare" -> {
        int handle = nextHandle++;
        prepared.put(handle, (String) p.get(2).value());
        server.record(new SqlServerStandIn.Executed(null, "sp_prepare", (String) p.get(2).value(), List.of()));
        TokenStream out = new TokenStream(io);
        endProcedure(out, handle);
        out.end();
        return true;
      }
      case "sp_execute" -> {
        int handle = ((Number) p.get(0).value()).intValue();
        String stmt = prepared.get(handle);
        if (stmt == null) {
          return error(true, new SqlError(8179, 4, 16, "Could not find prepared statement with handle " + handle + "."));
        }
        return execute("sp_execute", stmt, values(p, 1), true, null);
      }
      case "sp_unprepare" -> {
        int handle = ((Number) p.get(0).value()).intValue();
        server.record(new SqlServerStandIn.Executed(null, "sp_unprepare", String.valueOf(prepared.remove(handle)), List.of()));
        TokenStream out = new TokenStream(io);
        out.write(Tokens.returnStatus(0));
        out.write(Tokens.done(Tds.TOKEN_DONEPROC, Tds.DONE_FINAL, Tds.CMD_EXECUTE, 0));
        out.end();
        return true;
      }
      default -> {
        server.unknown("RPC of procedure " + call.procName());
        return error(true, new SqlError(2812, 62, 16, "Could not find stored procedure '" + call.procName() + "'."));
      }
    }
  }

  private static List<Object> values(List<Param> p, int from) {
    List<Object> v = new ArrayList<>();
    for (int i = from; i < p.size(); i++) {
      v.add(p.get(i).value());
    }
    return v;
  }

  private boolean error(boolean rpc, SqlError e) throws IOException {
    TokenStream out = new TokenStream(io);
    out.write(message(e));
    out.write(Tokens.done(rpc ? Tds.TOKEN_DONEPROC : Tds.TOKEN_DONE, Tds.DONE_ERROR, 0, 0));
    out.end();
    if (e.fatal()) {
      close();
      return false;
    }
    return true;
  }

  /**
   * Recognises the statement, applies the fault plan and streams the answer.
   *
   * @param values the RPC's parameter values (the @P0.. of {@code text}, in order)
   * @param handle the handle of an sp_prepexec (sent first, as RETURNVALUE), or null
   * @return false when the connection went away
   */
  private boolean execute(String via, String text, List<Object> values, boolean rpc, Integer handle) throws IOException {
    ParameterMarks.Converted c = ParameterMarks.toQuestionMarks(text, values);
    Optional<Statement.Recognised> r;
    try {
      r = Statement.recognise(c.sql());
    } catch (IllegalStateException e) {
      server.unknown(e.getMessage());
      return error(rpc, new SqlError(50000, 1, 16, e.getMessage()));
    }
    if (r.isEmpty()) {
      server.unknown(c.sql());
      return error(rpc, new SqlError(50000, 1, 16, "The SQL Server stand-in knows no statement of this shape"
          + " (add it to io.mssqlcdc.standin.Statement and Answers): " + c.sql()));
    }
    Statement kind = r.get().kind();
    server.record(new SqlServerStandIn.Executed(kind, via, c.sql(), c.params()));
    Optional<Fault> fault = server.faults().take(kind);
    TokenStream out = new TokenStream(io);
    if (fault.isPresent() && fault.get().action() == Faults.Action.DELAY) {
      if (awaitAttention(fault.get().delay())) {
        endInterrupted(out);
        return true;
      }
      fault = Optional.empty();
    }
    if (fault.isPresent() && fault.get().afterRows() == 0) {
      if (fault.get().action() == Faults.Action.RESET) {
        out.flush();
        reset();
        return false;
      }
      return finishWithError(out, rpc, fault.get().error());
    }
    Answer answer;
    try {
      answer = answers.answer(r.get(), c.params());
    } catch (SqlError e) {
      return finishWithError(out, rpc, e);
    } catch (RuntimeException e) {
      server.failure("answering " + kind + " failed: " + e + " for " + c.sql() + " " + c.params(), e);
      return finishWithError(out, rpc, new SqlError(50000, 1, 16, "The stand-in failed answering " + kind + ": " + e));
    }
    if (answer instanceof Rows rows) {
      return stream(out, rows, rpc, fault.orElse(null), handle);
    }
    out.write(Tokens.done(rpc ? Tds.TOKEN_DONEINPROC : Tds.TOKEN_DONE, rpc ? Tds.DONE_MORE : Tds.DONE_FINAL, Tds.CMD_SET, 0));
    if (rpc) {
      endProcedure(out, handle);
    }
    out.end();
    return true;
  }

  /**
   * The end of a procedure call: RETURNSTATUS, then the output parameter of an sp_prepexec (the
   * handle: mssql-jdbc takes a RETURNVALUE before the RETURNSTATUS for a TEXTPTR and ignores it),
   * then the final DONEPROC.
   */
  private static void endProcedure(TokenStream out, Integer handle) throws IOException {
    out.write(Tokens.returnStatus(0));
    if (handle != null) {
      out.write(Tokens.returnValue(0, "", SqlType.parse("int"), handle));
    }
    out.write(Tokens.done(Tds.TOKEN_DONEPROC, Tds.DONE_FINAL, Tds.CMD_EXECUTE, 0));
  }

  /**
   * Ends a response an attention interrupted as SQL Server does: the response message ends with a
   * DONE(ERROR), and the attention acknowledgement, DONE(ATTN), follows as a message of its own
   * (mssql-jdbc reads one more message after the interrupted response's end to find it).
   */
  private void endInterrupted(TokenStream out) throws IOException {
    out.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_ERROR, 0, 0));
    out.end();
    TokenStream ack = new TokenStream(io);
    ack.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_ATTN, 0, 0));
    ack.end();
  }

  private boolean finishWithError(TokenStream out, boolean rpc, SqlError e) throws IOException {
    out.write(message(e));
    out.write(Tokens.done(rpc ? Tds.TOKEN_DONEPROC : Tds.TOKEN_DONE, Tds.DONE_ERROR, 0, 0));
    out.end();
    if (e.fatal()) {
      reset();
      return false;
    }
    return true;
  }

  private boolean stream(TokenStream out, Rows rows, boolean rpc, Fault fault, Integer handle) throws IOException {
    try (RowSource source = rows.rows()) {
      out.write(Tokens.colMetadata(rows.columns()));
      long count = 0;
      while (true) {
        if (takeAttention()) {
          endInterrupted(out);
          return true;
        }
        if (fault != null && fault.afterRows() == count) {
          if (fault.action() == Faults.Action.RESET) {
            out.flush();
            reset();
            return false;
          }
          return finishWithError(out, rpc, fault.error());
        }
        Object[] row;
        try {
          row = source.next();
        } catch (SqlError e) {
          return finishWithError(out, rpc, e);
        } catch (RuntimeException e) {
          server.failure("reading rows failed: " + e, e);
          return finishWithError(out, rpc, new SqlError(50000, 1, 16, "The stand-in failed reading rows: " + e));
        }
        if (row == null) {
          break;
        }
        out.write(Tokens.row(rows.columns(), row));
        count++;
      }
      if (rpc) {
        out.write(Tokens.done(Tds.TOKEN_DONEINPROC, Tds.DONE_MORE | Tds.DONE_COUNT, Tds.CMD_SELECT, count));
        endProcedure(out, handle);
      } else {
        out.write(Tokens.done(Tds.TOKEN_DONE, Tds.DONE_COUNT, Tds.CMD_SELECT, count));
      }
      out.end();
      return true;
    }
  }
}
