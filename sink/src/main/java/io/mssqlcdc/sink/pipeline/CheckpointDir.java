package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.errors.SinkErrors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * A stream's checkpoint directory and the files the pipeline keeps beside Spark's
 * (reference-behaviour §10.2): the generation state {@code _mssql_cdc_generation.json} and
 * generation n's Spark checkpoint {@code _generations/<n>}. Read and written through Hadoop's
 * {@link FileSystem} with the session's configuration, so the driver resolves the path exactly as
 * Spark resolves {@code checkpointLocation} (a plain path is the default file system's).
 *
 * <p>A URI checkpoint ({@code ^[A-Za-z][A-Za-z0-9+.-]+:}, e.g. {@code abfss://}, {@code dbfs:/},
 * {@code file:/}; a Windows drive {@code C:} is not one) has no generations: it is always
 * generation 0 and takes no {@code onDataLoss=resnapshot}, as in the reference, which never writes
 * a state file there (a team switching back must find none).
 */
public final class CheckpointDir {
  /** The reference's test for "a URI": a scheme of at least two characters, then a colon. */
  private static final Pattern URI = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+:");
  static final String STATE_FILE = "_mssql_cdc_generation.json";
  static final String GENERATIONS = "_generations";

  private final String root;
  private final Configuration conf;

  private CheckpointDir(String root, Configuration conf) {
    this.root = root;
    this.conf = conf;
  }

  public static CheckpointDir of(SparkSession spark, String checkpoint) {
    return new CheckpointDir(checkpoint, spark.sparkContext().hadoopConfiguration());
  }

  /** Whether {@code checkpoint} is a URI (then always generation 0). */
  public static boolean isUri(String checkpoint) {
    return URI.matcher(checkpoint).find();
  }

  /** Whether the reference's resnapshot test refuses the path: a URI, or under {@code /dbfs/}. */
  public static boolean isUnfitForRecovery(String checkpoint) {
    return isUri(checkpoint) || (checkpoint + "/").startsWith("/dbfs/");
  }

  public String root() {
    return root;
  }

  /** The Spark checkpoint of generation {@code n}: the root in 0, {@code <root>/_generations/<n>} after. */
  public String generation(int n) {
    return n == 0 ? root : strip(root) + "/" + GENERATIONS + "/" + n;
  }

  /** The state file's path. */
  public String stateFile() {
    return strip(root) + "/" + STATE_FILE;
  }

  /** The generation state; {@link GenerationState#INITIAL} for a URI checkpoint or without a file. */
  public GenerationState readState() {
    if (isUri(root)) {
      return GenerationState.INITIAL;
    }
    Optional<String> text = read(new Path(stateFile()));
    if (text.isPresent()) {
      return GenerationState.parse(text.get(), stateFile());
    }
    // A write that replaced the file by delete + rename and stopped in between leaves the complete .tmp;
    // a first write that stopped while writing it leaves a partial one (nothing was committed then).
    Optional<String> tmp = read(new Path(stateFile() + ".tmp"));
    if (tmp.isPresent()) {
      try {
        return GenerationState.parse(tmp.get(), stateFile() + ".tmp");
      } catch (RuntimeException e) {
        return GenerationState.INITIAL;
      }
    }
    return GenerationState.INITIAL;
  }

  /** Writes the state atomically: to {@code .tmp}, then renamed over the file (the commit point). */
  public void writeState(GenerationState state) {
    if (isUri(root)) {
      throw new IllegalStateException("A URI checkpoint has no generation state: " + root);
    }
    Path target = new Path(stateFile());
    Path tmp = new Path(stateFile() + ".tmp");
    try {
      FileSystem fs = target.getFileSystem(conf);
      fs.mkdirs(target.getParent());
      try (OutputStream out = fs.create(tmp, true)) {
        out.write(state.toJson().getBytes(StandardCharsets.UTF_8));
      }
      try {
        // Atomic replace where the file system has one (local, HDFS).
        FileContext.getFileContext(target.toUri(), conf).rename(tmp, target, Options.Rename.OVERWRITE);
      } catch (UnsupportedOperationException | UnsupportedFileSystemException e) {
        // Delete, then rename: a crash between the two leaves only the complete .tmp, which readState uses.
        if (fs.exists(target) && !fs.delete(target, false)) {
          throw new IOException("cannot replace " + target);
        }
        if (!fs.rename(tmp, target)) {
          throw new IOException("cannot rename " + tmp + " to " + target);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Writing " + target + ": " + e.getMessage(), e);
    }
  }

  /** Whether generation {@code n}'s checkpoint has Spark's {@code metadata} file. */
  public boolean hasSparkMetadata(int n) {
    return exists(new Path(generation(n) + "/metadata"));
  }

  /** Whether Spark planned a batch in generation {@code n}'s checkpoint (an {@code offsets/} file): a start resumes. */
  public boolean hasOffsets(int n) {
    return highestNumeric(new Path(generation(n) + "/offsets")).isPresent();
  }

  /** The id of the last batch Spark committed in generation {@code n}'s checkpoint; empty when none. */
  public OptionalLong lastCommittedBatch(int n) {
    return highestNumeric(new Path(generation(n) + "/commits"));
  }

  /**
   * The source offset of the last batch Spark committed in generation {@code n}'s checkpoint:
   * the highest numeric file in {@code commits/}, then line 3 of {@code offsets/<that>} (line 1
   * must be {@code v1}). Empty when nothing was committed.
   */
  public Optional<String> lastCommittedOffset(int n) {
    String dir = generation(n);
    OptionalLong last = highestNumeric(new Path(dir + "/commits"));
    if (last.isEmpty()) {
      return Optional.empty();
    }
    String file = dir + "/offsets/" + last.getAsLong();
    String text = read(new Path(file)).orElseThrow(() -> SinkErrors.checkpointUnreadable(file,
        "commits/" + last.getAsLong() + " exists, but its offset file does not"));
    String[] lines = text.split("\n", -1);
    if (!lines[0].strip().equals("v1")) {
      throw SinkErrors.checkpointUnreadable(file, "Spark offset log version '" + lines[0].strip() + "'");
    }
    if (lines.length < 3 || lines[2].isBlank()) {
      throw SinkErrors.checkpointUnreadable(file, "no source offset on line 3");
    }
    return Optional.of(lines[2].strip());
  }

  private OptionalLong highestNumeric(Path dir) {
    try {
      FileSystem fs = dir.getFileSystem(conf);
      if (!fs.exists(dir)) {
        return OptionalLong.empty();
      }
      long best = -1;
      for (FileStatus s : fs.listStatus(dir)) {
        String name = s.getPath().getName();
        if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) {
          best = Math.max(best, Long.parseLong(name));
        }
      }
      return best < 0 ? OptionalLong.empty() : OptionalLong.of(best);
    } catch (IOException e) {
      throw new UncheckedIOException("Listing " + dir + ": " + e.getMessage(), e);
    }
  }

  private boolean exists(Path p) {
    try {
      return p.getFileSystem(conf).exists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Optional<String> read(Path p) {
    try {
      FileSystem fs = p.getFileSystem(conf);
      if (!fs.exists(p)) {
        return Optional.empty();
      }
      try (InputStream in = fs.open(p)) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        in.transferTo(buf);
        return Optional.of(buf.toString(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Reading " + p + ": " + e.getMessage(), e);
    }
  }

  private static String strip(String s) {
    return s.endsWith("/") && s.length() > 1 ? s.substring(0, s.length() - 1) : s;
  }
}
