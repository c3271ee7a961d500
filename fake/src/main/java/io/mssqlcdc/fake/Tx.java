package io.mssqlcdc.fake;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The row operations of one transaction, in order, as a script builds them. Tables are named
 * {@code schema.table} or {@code table} (schema {@code dbo}), ignoring case.
 */
public final class Tx {
  enum Kind { INSERT, UPDATE, DELETE_KEY, DELETE_ROW }

  record Op(Kind kind, String table, Map<String, Object> row, List<Object> key) {}

  private final List<Op> ops = new ArrayList<>();

  Tx() {}

  /** Inserts {@code row} (columns left out are NULL). */
  public Tx insert(String table, Map<String, Object> row) {
    ops.add(new Op(Kind.INSERT, table, new LinkedHashMap<>(row), null));
    return this;
  }

  /**
   * Updates the row whose key {@code row} carries, setting the other columns it names (the
   * rest keep their values). Key values cannot change.
   */
  public Tx update(String table, Map<String, Object> row) {
    ops.add(new Op(Kind.UPDATE, table, new LinkedHashMap<>(row), null));
    return this;
  }

  /** Deletes the row with this key ({@link FakeRows#key}). */
  public Tx delete(String table, List<Object> key) {
    ops.add(new Op(Kind.DELETE_KEY, table, null, new ArrayList<>(key)));
    return this;
  }

  /** Deletes the first row whose named columns equal {@code match} (tables without a key). */
  public Tx deleteRow(String table, Map<String, Object> match) {
    ops.add(new Op(Kind.DELETE_ROW, table, new LinkedHashMap<>(match), null));
    return this;
  }

  List<Op> ops() {
    return ops;
  }

  /** Encoded for the before-read queue in the manifest. */
  byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(ops.size());
      for (Op op : ops) {
        out.writeByte(op.kind().ordinal());
        out.writeUTF(op.table());
        if (op.row() != null) {
          out.writeInt(op.row().size());
          for (Map.Entry<String, Object> e : op.row().entrySet()) {
            out.writeUTF(e.getKey());
            ValueCodec.write(out, e.getValue());
          }
        } else {
          out.writeInt(-1);
        }
        if (op.key() != null) {
          out.writeInt(op.key().size());
          for (Object v : op.key()) {
            ValueCodec.write(out, v);
          }
        } else {
          out.writeInt(-1);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static Tx decode(byte[] encoded) {
    Tx tx = new Tx();
    FastInput in = new FastInput(new ByteArrayInputStream(encoded), 4096);
    int n = in.readInt();
    for (int i = 0; i < n; i++) {
      Kind kind = Kind.values()[in.readByte()];
      String table = utf(in);
      Map<String, Object> row = null;
      int cols = in.readInt();
      if (cols >= 0) {
        row = new LinkedHashMap<>();
        for (int j = 0; j < cols; j++) {
          row.put(utf(in), ValueCodec.read(in));
        }
      }
      List<Object> key = null;
      int keys = in.readInt();
      if (keys >= 0) {
        key = new ArrayList<>();
        for (int j = 0; j < keys; j++) {
          key.add(ValueCodec.read(in));
        }
      }
      tx.ops.add(new Op(kind, table, row, key));
    }
    return tx;
  }

  private static String utf(FastInput in) {
    int len = in.readShort() & 0xFFFF;
    return new String(in.readBytes(len), java.nio.charset.StandardCharsets.UTF_8);
  }
}
