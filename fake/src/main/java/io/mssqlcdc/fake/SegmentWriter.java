package io.mssqlcdc.fake;

import io.mssqlcdc.lsn.Lsn;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;

/**
 * Writes the change rows of one commit for one capture instance as an immutable segment file:
 * header (magic, captured column names, row count), then per row {@code seqval}, operation,
 * command id and the type-tagged values in capture order. Rows are written in the read order
 * {@code (command_id, seqval, operation)}.
 */
final class SegmentWriter {
  static final int MAGIC = 0x46435331; // "FCS1"

  record ChangeRow(Lsn seqval, int operation, int commandId, Object[] values) {}

  static final Comparator<ChangeRow> ORDER = Comparator.comparingInt(ChangeRow::commandId)
      .thenComparing(ChangeRow::seqval)
      .thenComparingInt(ChangeRow::operation);

  private SegmentWriter() {}

  static void write(FakeStore store, String relative, List<String> columns, List<ChangeRow> rows) {
    List<ChangeRow> sorted = rows.stream().sorted(ORDER).toList();
    store.writeAtomically(relative, out -> body(out, columns, sorted));
  }

  private static void body(DataOutputStream out, List<String> columns, List<ChangeRow> rows) throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(columns.size());
    for (String c : columns) {
      out.writeUTF(c);
    }
    out.writeInt(rows.size());
    for (ChangeRow r : rows) {
      CatalogCodec.writeLsn(out, r.seqval());
      out.writeByte(r.operation());
      out.writeInt(r.commandId());
      for (Object v : r.values()) {
        ValueCodec.write(out, v);
      }
    }
  }
}
