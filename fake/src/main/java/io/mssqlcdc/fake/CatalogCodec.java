package io.mssqlcdc.fake;

import io.mssqlcdc.fake.Catalog.CaptureState;
import io.mssqlcdc.fake.Catalog.Captured;
import io.mssqlcdc.fake.Catalog.ColumnState;
import io.mssqlcdc.fake.Catalog.DdlRecord;
import io.mssqlcdc.fake.Catalog.HeldCommit;
import io.mssqlcdc.fake.Catalog.HeldSegment;
import io.mssqlcdc.fake.Catalog.InstanceState;
import io.mssqlcdc.fake.Catalog.MappingEntry;
import io.mssqlcdc.fake.Catalog.SegmentRef;
import io.mssqlcdc.fake.Catalog.TableState;
import io.mssqlcdc.fake.Catalog.Trash;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.types.SqlServerType;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** Binary (de)serialisation of a {@link Catalog}: the manifest file's body. */
final class CatalogCodec {
  private CatalogCodec() {}

  static final int MAGIC = 0x46434D32; // "FCM2": FCM1 and the capture job's state
  /** The first format, without the capture state (read as a running capture job). */
  static final int MAGIC_1 = 0x46434D31; // "FCM1"

  static void write(DataOutputStream out, Catalog c) throws IOException {
    boolean capture = !c.capture.isDefault();
    out.writeInt(capture ? MAGIC : MAGIC_1); // FCM1 unless a history simulates the jobs: older readers read it
    out.writeLong(c.version);
    out.writeUTF(c.zone);
    out.writeLong(c.nextFree);
    out.writeInt(c.nextUid);
    out.writeLong(c.nextEnableSeq);
    out.writeInt(c.mapping.size());
    for (MappingEntry e : c.mapping) {
      writeLsn(out, e.lsn());
      writeTime(out, e.tranEndTime());
      out.writeBoolean(e.idle());
    }
    out.writeInt(c.tables.size());
    for (TableState t : c.tables) {
      out.writeInt(t.uid);
      out.writeUTF(t.schema);
      out.writeUTF(t.name);
      out.writeInt(t.nextColumnId);
      out.writeInt(t.columns.size());
      for (ColumnState col : t.columns) {
        out.writeUTF(col.name);
        out.writeInt(col.columnId);
        out.writeUTF(col.type.declaration());
        out.writeBoolean(col.computed);
        out.writeBoolean(col.dropped);
      }
      out.writeInt(t.key.size());
      for (String k : t.key) {
        out.writeUTF(k);
      }
      ValueCodec.write(out, t.rowsFile);
      out.writeLong(t.rowCount);
    }
    out.writeInt(c.instances.size());
    for (InstanceState i : c.instances) {
      out.writeUTF(i.name);
      out.writeInt(i.uid);
      out.writeInt(i.tableUid);
      writeLsn(out, i.startLsn);
      writeLsn(out, i.lowWatermark);
      writeTime(out, i.createDate);
      out.writeLong(i.enableSeq);
      out.writeInt(i.columns.size());
      for (Captured col : i.columns) {
        out.writeUTF(col.name());
        out.writeInt(col.ordinal());
        out.writeInt(col.columnId());
        out.writeUTF(col.type().declaration());
        out.writeBoolean(col.computed());
      }
      out.writeInt(i.ddl.size());
      for (DdlRecord d : i.ddl) {
        writeLsn(out, d.lsn());
        ValueCodec.write(out, d.command());
      }
      out.writeInt(i.segments.size());
      for (SegmentRef s : i.segments) {
        writeLsn(out, s.commitLsn());
        out.writeUTF(s.file());
        out.writeInt(s.rows());
      }
    }
    out.writeInt(c.pending.size());
    for (byte[] p : c.pending) {
      out.writeInt(p.length);
      out.write(p);
    }
    out.writeInt(c.trash.size());
    for (Trash t : c.trash) {
      out.writeLong(t.version());
      out.writeUTF(t.file());
    }
    if (capture) {
      writeCapture(out, c.capture);
    }
  }

  private static void writeCapture(DataOutputStream out, CaptureState k) throws IOException {
    out.writeBoolean(k.running);
    out.writeBoolean(k.behind);
    out.writeBoolean(k.stoppedAt != null);
    if (k.stoppedAt != null) {
      writeTime(out, k.stoppedAt);
    }
    out.writeLong(k.retentionMinutes);
    out.writeBoolean(k.stateHidden);
    out.writeBoolean(k.errorAt != null);
    if (k.errorAt != null) {
      writeTime(out, k.errorAt);
      out.writeUTF(k.errorMessage);
    }
    out.writeInt(k.held.size());
    for (HeldCommit h : k.held) {
      writeLsn(out, h.entry().lsn());
      writeTime(out, h.entry().tranEndTime());
      out.writeInt(h.segments().size());
      for (HeldSegment g : h.segments()) {
        out.writeInt(g.instanceUid());
        writeLsn(out, g.segment().commitLsn());
        out.writeUTF(g.segment().file());
        out.writeInt(g.segment().rows());
      }
    }
  }

  private static void readCapture(FastInput in, CaptureState k) {
    k.running = in.readByte() != 0;
    k.behind = in.readByte() != 0;
    k.stoppedAt = in.readByte() != 0 ? readTime(in) : null;
    k.retentionMinutes = in.readLong();
    k.stateHidden = in.readByte() != 0;
    if (in.readByte() != 0) {
      k.errorAt = readTime(in);
      k.errorMessage = utf(in);
    }
    int n = in.readInt();
    for (int j = 0; j < n; j++) {
      MappingEntry entry = new MappingEntry(readLsn(in), readTime(in), false);
      int segs = in.readInt();
      List<HeldSegment> segments = new ArrayList<>(segs);
      for (int g = 0; g < segs; g++) {
        segments.add(new HeldSegment(in.readInt(), new SegmentRef(readLsn(in), utf(in), in.readInt())));
      }
      k.held.add(new HeldCommit(entry, segments));
    }
  }

  static Catalog read(FastInput in) {
    int magic = in.readInt();
    if (magic != MAGIC && magic != MAGIC_1) {
      throw new IllegalStateException("not a manifest (bad magic number)");
    }
    Catalog c = new Catalog();
    c.version = in.readLong();
    c.zone = utf(in);
    c.nextFree = in.readLong();
    c.nextUid = in.readInt();
    c.nextEnableSeq = in.readLong();
    int n = in.readInt();
    for (int k = 0; k < n; k++) {
      c.mapping.add(new MappingEntry(readLsn(in), readTime(in), in.readByte() != 0));
    }
    n = in.readInt();
    for (int k = 0; k < n; k++) {
      TableState t = new TableState();
      t.uid = in.readInt();
      t.schema = utf(in);
      t.name = utf(in);
      t.nextColumnId = in.readInt();
      int cols = in.readInt();
      for (int j = 0; j < cols; j++) {
        t.columns.add(new ColumnState(utf(in), in.readInt(), SqlServerType.parse(utf(in)), in.readByte() != 0,
            in.readByte() != 0));
      }
      int keys = in.readInt();
      for (int j = 0; j < keys; j++) {
        t.key.add(utf(in));
      }
      t.rowsFile = (String) ValueCodec.read(in);
      t.rowCount = in.readLong();
      c.tables.add(t);
    }
    n = in.readInt();
    for (int k = 0; k < n; k++) {
      InstanceState i = new InstanceState();
      i.name = utf(in);
      i.uid = in.readInt();
      i.tableUid = in.readInt();
      i.startLsn = readLsn(in);
      i.lowWatermark = readLsn(in);
      i.createDate = readTime(in);
      i.enableSeq = in.readLong();
      int cols = in.readInt();
      for (int j = 0; j < cols; j++) {
        i.columns.add(new Captured(utf(in), in.readInt(), in.readInt(), SqlServerType.parse(utf(in)), in.readByte() != 0));
      }
      int ddl = in.readInt();
      for (int j = 0; j < ddl; j++) {
        i.ddl.add(new DdlRecord(readLsn(in), (String) ValueCodec.read(in)));
      }
      int segs = in.readInt();
      for (int j = 0; j < segs; j++) {
        i.segments.add(new SegmentRef(readLsn(in), utf(in), in.readInt()));
      }
      c.instances.add(i);
    }
    n = in.readInt();
    for (int k = 0; k < n; k++) {
      c.pending.add(in.readBytes(in.readInt()));
    }
    n = in.readInt();
    for (int k = 0; k < n; k++) {
      c.trash.add(new Trash(in.readLong(), utf(in)));
    }
    if (magic == MAGIC) {
      readCapture(in, c.capture);
    }
    return c;
  }

  static void writeLsn(DataOutputStream out, Lsn lsn) throws IOException {
    out.writeShort(lsn.high());
    out.writeLong(lsn.low());
  }

  static Lsn readLsn(FastInput in) {
    return Lsn.of(in.readShort() & 0xFFFF, in.readLong());
  }

  private static void writeTime(DataOutputStream out, LocalDateTime t) throws IOException {
    out.writeLong(t.toEpochSecond(ZoneOffset.UTC));
    out.writeInt(t.getNano());
  }

  private static LocalDateTime readTime(FastInput in) {
    return LocalDateTime.ofEpochSecond(in.readLong(), in.readInt(), ZoneOffset.UTC);
  }

  /** Reads what {@link DataOutputStream#writeUTF} wrote (ASCII and BMP names). */
  private static String utf(FastInput in) {
    int len = in.readShort() & 0xFFFF;
    byte[] b = in.readBytes(len);
    return modifiedUtf8(b);
  }

  private static String modifiedUtf8(byte[] b) {
    StringBuilder sb = new StringBuilder(b.length);
    int i = 0;
    while (i < b.length) {
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        sb.append((char) c);
        i++;
      } else if ((c & 0xE0) == 0xC0) {
        sb.append((char) (((c & 0x1F) << 6) | (b[i + 1] & 0x3F)));
        i += 2;
      } else {
        sb.append((char) (((c & 0x0F) << 12) | ((b[i + 1] & 0x3F) << 6) | (b[i + 2] & 0x3F)));
        i += 3;
      }
    }
    return sb.toString();
  }
}
