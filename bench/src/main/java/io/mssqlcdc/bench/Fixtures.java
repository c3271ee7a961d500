package io.mssqlcdc.bench;

import io.mssqlcdc.fake.FakeCdcDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Writes fixtures into fake databases once and keeps them between runs: the fake writes slowly
 * (seconds per 100,000 rows), so a directory that holds a {@code READY} file with the fixture's
 * descriptor is reused as it is; anything else there is deleted and written again. Benchmarks
 * only read these directories (their checkpoints and tables live elsewhere).
 */
public final class Fixtures {
  /** Above this many rows in one transaction the writer runs in a JVM of its own, with a heap to match. */
  static final int CHILD_JVM_ROWS = 1_000_000;

  private Fixtures() {}

  /** The fake database directory of {@code f} under {@code data}, written first if needed. */
  public static Path fake(Path data, Fixture f) {
    Path dir = data.resolve(f.name()).resolve("fake");
    return ensure(dir, f.descriptor(), () -> {
      if (f.rowsPerCommit() >= CHILD_JVM_ROWS) {
        writeInChildJvm(f, dir);
      } else {
        write(f, dir);
      }
    });
  }

  /**
   * {@code dir}, made by {@code make} unless it holds a {@code READY} file saying {@code descriptor}.
   */
  public static Path ensure(Path dir, String descriptor, Runnable make) {
    Path ready = dir.resolve("READY");
    try {
      if (Files.exists(ready) && Files.readString(ready).equals(descriptor)) {
        return dir;
      }
      delete(dir);
      Files.createDirectories(dir);
      long t0 = System.nanoTime();
      Log.info("writing %s (%s)", dir, descriptor);
      make.run();
      Files.writeString(ready, descriptor);
      Log.info("wrote %s in %.1f s", dir, (System.nanoTime() - t0) / 1e9);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes {@code f} into a new fake database at {@code dir}. */
  public static void write(Fixture f, Path dir) {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dir)) {
      FakeCdcDatabase.TableHandle t = db.createTable("dbo", f.table(), f.columns().toArray(String[]::new));
      if (f.keyed()) {
        t.key("id");
      }
      db.enableCdc("dbo", f.table());
      int n = f.columns().size();
      String[] names = new String[n];
      for (int j = 0; j < n; j++) {
        names[j] = f.columnName(j);
      }
      for (int from = 0; from < f.rows(); from += f.rowsPerCommit()) {
        int start = from;
        int end = Math.min(f.rows(), from + f.rowsPerCommit());
        db.commit(tx -> {
          for (int k = start; k < end; k++) {
            Map<String, Object> row = new LinkedHashMap<>(n * 2);
            for (int j = 0; j < n; j++) {
              row.put(names[j], f.value(j, k));
            }
            tx.insert(f.table(), row);
          }
        });
      }
    }
  }

  /** Entry point of the child JVM: {@code <fixture kind> <rows> <dir>}. */
  public static void main(String[] args) {
    write(byKind(args[0], Integer.parseInt(args[1])), Path.of(args[2]));
  }

  static Fixture byKind(String kind, int rows) {
    return switch (kind) {
      case "narrow" -> Fixture.narrow(rows);
      case "wide" -> Fixture.wide(rows);
      case "tx" -> Fixture.bigTransaction(rows);
      default -> throw new IllegalArgumentException(kind);
    };
  }

  private static void writeInChildJvm(Fixture f, Path dir) {
    long heapMb = Math.max(2048, (long) f.rows() * 900 / (1 << 20));
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heapMb + "m", "-XX:+UseParallelGC",
        "-cp", System.getProperty("java.class.path"), Fixtures.class.getName(), f.table(), Integer.toString(f.rows()),
        dir.toString()));
    try {
      Process p = new ProcessBuilder(cmd).inheritIO().start();
      int rc = p.waitFor();
      if (rc != 0) {
        throw new IllegalStateException("the fixture writer for " + f.name() + " exited with " + rc + ": " + cmd);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
