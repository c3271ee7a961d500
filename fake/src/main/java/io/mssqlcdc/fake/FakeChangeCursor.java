package io.mssqlcdc.fake;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ColumnNames;
import io.mssqlcdc.fake.Catalog.SegmentRef;
import io.mssqlcdc.lsn.Lsn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.List;

/**
 * Streams the change rows of a list of segments (one per commit, in LSN order). A segment of a
 * cacheable size is decoded whole once and then served from {@link DecodedSegments}; a larger
 * one streams from its file, decoding only the requested columns. A segment deleted since the
 * catalog was loaded (cleanup, disable) reads as empty, like a purged range on SQL Server.
 */
final class FakeChangeCursor implements ChangeCursor {
  // Hot path: the values array is reused across rows and seqval is built only when asked for.
  private final FakeStore store;
  private final List<SegmentRef> segments;
  private final List<Instant> commitTimes;
  private final List<String> requested;
  private final boolean includeCommandId;

  private int segmentIndex = -1;
  private FastInput in;
  private int rowsLeft;
  private int[] target;
  /** For each requested column, the requested index its value is held under (itself, or an earlier duplicate). */
  private final int[] alias;
  private Lsn startLsn;
  private Instant commitTime;

  private int seqHigh;
  private long seqLow;
  private Lsn seqval;
  private int operation;
  private int commandId;
  private Object[] values;
  /** The current segment when it is served decoded; null while streaming from the file. */
  private DecodedSegments.Decoded decoded;
  private int decodedRow;

  FakeChangeCursor(FakeStore store, List<SegmentRef> segments, List<Instant> commitTimes, List<String> requested,
      boolean includeCommandId) {
    this.store = store;
    this.segments = segments;
    this.commitTimes = commitTimes;
    this.requested = requested;
    this.includeCommandId = includeCommandId;
    this.values = new Object[requested.size()];
    this.alias = new int[requested.size()];
  }

  @Override
  public boolean next() {
    while (rowsLeft == 0) {
      closeSegment();
      if (!openNextSegment()) {
        return false;
      }
    }
    if (decoded != null) {
      return nextDecoded();
    }
    FastInput f = in;
    seqHigh = f.readShort() & 0xFFFF;
    seqLow = f.readLong();
    seqval = null; // built on demand
    operation = f.readByte();
    int cmd = f.readInt();
    commandId = includeCommandId ? cmd : 0;
    Object[] row = values; // reused: values are valid until the next call of next()
    int[] t = target;
    for (int j = 0; j < t.length; j++) {
      int k = t[j];
      if (k < 0) {
        ValueCodec.skip(f);
      } else {
        row[k] = ValueCodec.read(f);
      }
    }
    rowsLeft--;
    return true;
  }

  private boolean nextDecoded() {
    DecodedSegments.Decoded d = decoded;
    int r = decodedRow++;
    seqHigh = d.seqHigh()[r];
    seqLow = d.seqLow()[r];
    seqval = null;
    operation = d.operation()[r];
    commandId = includeCommandId ? d.commandId()[r] : 0;
    Object[] source = d.values()[r];
    Object[] row = values;
    int[] t = target;
    for (int j = 0; j < t.length; j++) {
      int k = t[j];
      if (k >= 0) {
        row[k] = source[j];
      }
    }
    rowsLeft--;
    return true;
  }

  private boolean openNextSegment() {
    while (++segmentIndex < segments.size()) {
      SegmentRef ref = segments.get(segmentIndex);
      Path file = store.file(ref.file());
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(file, BasicFileAttributes.class);
        decoded = DecodedSegments.get(file, attributes.size(), attributes.lastModifiedTime().toMillis());
        if (decoded != null) {
          openDecoded(ref);
          return true;
        }
        in = new FastInput(Files.newInputStream(file), 1 << 16);
      } catch (NoSuchFileException e) {
        continue; // purged meanwhile: reads as empty
      } catch (IOException e) {
        throw FakeErrors.io(file, e);
      }
      try {
        if (in.readInt() != SegmentWriter.MAGIC) {
          throw FakeErrors.corrupt(file, "not a change segment (bad magic number)");
        }
        int cols = in.readInt();
        String[] names = new String[cols];
        for (int j = 0; j < cols; j++) {
          names[j] = readUtf(in);
        }
        mapColumns(names);
        rowsLeft = in.readInt();
        java.util.Arrays.fill(values, null); // requested columns this segment lacks read as NULL
        if (DecodedSegments.cacheable(rowsLeft)) {
          decoded = decodeRest(names);
          closeSegment();
          DecodedSegments.put(file, attributes.size(), attributes.lastModifiedTime().toMillis(), decoded);
          openDecoded(ref);
          return true;
        }
      } catch (UncheckedIOException e) {
        throw FakeErrors.corrupt(file, e.getMessage());
      }
      startLsn = ref.commitLsn();
      commitTime = commitTimes.get(segmentIndex);
      return true;
    }
    return false;
  }

  /** Decodes every remaining row of the open segment, all of its columns ({@code names}). */
  private DecodedSegments.Decoded decodeRest(String[] names) {
    int rows = rowsLeft;
    int cols = names.length;
    int[] seqHighs = new int[rows];
    long[] seqLows = new long[rows];
    byte[] ops = new byte[rows];
    int[] cmds = new int[rows];
    Object[][] all = new Object[rows][];
    FastInput f = in;
    for (int r = 0; r < rows; r++) {
      seqHighs[r] = f.readShort() & 0xFFFF;
      seqLows[r] = f.readLong();
      ops[r] = f.readByte();
      cmds[r] = f.readInt();
      Object[] v = new Object[cols];
      for (int j = 0; j < cols; j++) {
        v[j] = ValueCodec.read(f);
      }
      all[r] = v;
    }
    return new DecodedSegments.Decoded(names, seqHighs, seqLows, ops, cmds, all);
  }

  /** Serves the segment {@code ref} from {@link #decoded}; {@link #target} maps its columns. */
  private void openDecoded(SegmentRef ref) {
    mapColumns(decoded.columns());
    java.util.Arrays.fill(values, null);
    decodedRow = 0;
    rowsLeft = decoded.rows();
    startLsn = ref.commitLsn();
    commitTime = commitTimes.get(segmentIndex);
  }

  /**
   * Maps the segment's columns {@code names} (SQL Server's spelling) to the requested ones: each
   * requested name finds its column as {@link ColumnNames} says (exact, else ignoring case), as
   * {@code SqlCdcClient} does; a column requested twice is decoded once and {@link #alias}ed.
   */
  private void mapColumns(String[] names) {
    target = new int[names.length];
    java.util.Arrays.fill(target, -1);
    for (int i = 0; i < alias.length; i++) {
      alias[i] = i;
      int k = ColumnNames.indexOf(requested.get(i), names);
      if (k >= 0) {
        if (target[k] < 0) {
          target[k] = i;
        } else {
          alias[i] = target[k];
        }
      }
    }
  }

  private static String readUtf(FastInput in) {
    int len = in.readShort() & 0xFFFF;
    return new String(in.readBytes(len), java.nio.charset.StandardCharsets.UTF_8);
  }

  private void closeSegment() {
    if (in != null) {
      in.close();
      in = null;
    }
  }

  @Override
  public Lsn startLsn() {
    return startLsn;
  }

  @Override
  public Lsn seqval() {
    if (seqval == null) {
      seqval = Lsn.of(seqHigh, seqLow);
    }
    return seqval;
  }

  @Override
  public int operation() {
    return operation;
  }

  @Override
  public int commandId() {
    return commandId;
  }

  @Override
  public Instant commitTime() {
    return commitTime;
  }

  @Override
  public Object value(int i) {
    return values[alias[i]];
  }

  @Override
  public void close() {
    closeSegment();
    segmentIndex = segments.size();
    rowsLeft = 0;
  }
}
