package io.mssqlcdc.connector.stream;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcErrors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Persists the stream's resolved initial offset under the source's checkpoint directory (after
 * Kafka's {@code KafkaSourceInitialOffsetWriter} and Iceberg's {@code InitialOffsetStore}), so
 * {@code startingLsn=latest} or {@code earliest} resolves once: a restart before the first
 * batch is committed starts at the same LSN.
 *
 * <p>File {@code <checkpointLocation>/mssql_cdc_initial_offset} ({@code checkpointLocation} is
 * what Spark passes to {@code toMicroBatchStream}, {@code <checkpoint>/sources/<n>}): line 1
 * {@code v1}, line 2 the {@link CdcOffset} JSON. Written to a temporary file and renamed, so a
 * reader never sees half a file.
 */
final class InitialOffsetStore {
  static final String FILE = "mssql_cdc_initial_offset";
  static final String VERSION_LINE = "v1";

  private final Path path;
  private final Configuration conf;

  InitialOffsetStore(String checkpointLocation, Configuration conf) {
    this.path = new Path(checkpointLocation, FILE);
    this.conf = conf;
  }

  /** The stored offset, or {@code resolve}'s (stored first) when there is none. */
  CdcOffset getOrCreate(Supplier<CdcOffset> resolve) {
    try {
      FileSystem fs = path.getFileSystem(conf);
      if (fs.exists(path)) {
        return read(fs);
      }
      CdcOffset offset = resolve.get();
      write(fs, offset);
      return offset;
    } catch (IOException e) {
      throw new UncheckedIOException("mssql_cdc: cannot read or write the initial offset at " + path
          + ": check the checkpointLocation is writable", e);
    }
  }

  private CdcOffset read(FileSystem fs) throws IOException {
    String text;
    try (FSDataInputStream in = fs.open(path)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    String[] lines = text.split("\n", -1);
    if (lines.length < 2 || !lines[0].strip().equals(VERSION_LINE)) {
      throw CdcErrors.invalidInitialOffset(path.toString(),
          "line 1 is '" + (lines.length == 0 ? "" : lines[0].strip()) + "', not '" + VERSION_LINE + "'");
    }
    return CdcOffset.fromJson(lines[1].strip());
  }

  private void write(FileSystem fs, CdcOffset offset) throws IOException {
    fs.mkdirs(path.getParent());
    Path tmp = new Path(path.getParent(), "." + FILE + "." + java.util.UUID.randomUUID() + ".tmp");
    try (FSDataOutputStream out = fs.create(tmp, false)) {
      out.write((VERSION_LINE + "\n" + offset.json() + "\n").getBytes(StandardCharsets.UTF_8));
    }
    if (!fs.rename(tmp, path)) {
      fs.delete(tmp, false);
      if (!fs.exists(path)) {
        throw new IOException("rename of " + tmp + " to " + path + " failed");
      }
    }
  }

  Path path() {
    return path;
  }
}
