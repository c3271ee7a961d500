package io.mssqlcdc.fake;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * The directory of a fake database and its commit protocol. Data files (change segments, table
 * rows, manifests) are immutable: written under a temporary name, then renamed into place. The
 * commit point is the atomic replacement of {@code CURRENT}, which names the newest manifest;
 * so a reader sees a commit whole or not at all, without taking any lock.
 */
final class FakeStore {
  static final String CURRENT = "CURRENT";
  static final String MANIFESTS = "manifests";
  static final String CHANGES = "changes";
  static final String TABLES = "tables";
  static final String TMP = "tmp";
  /** Manifests older than this many versions are deleted (a reader retries when it misses one). */
  static final int KEEP_VERSIONS = 8;

  private final Path dir;

  FakeStore(Path dir) {
    this.dir = dir.toAbsolutePath().normalize();
  }

  Path dir() {
    return dir;
  }

  Path file(String relative) {
    return dir.resolve(relative);
  }

  static String manifestName(long version) {
    return MANIFESTS + "/" + String.format("%020d", version) + ".manifest";
  }

  /** The version {@code CURRENT} names; -1 when the database has none yet. */
  long currentVersion() {
    try {
      byte[] b = Files.readAllBytes(dir.resolve(CURRENT));
      return Long.parseLong(new String(b, StandardCharsets.US_ASCII).strip());
    } catch (NoSuchFileException e) {
      return -1;
    } catch (IOException e) {
      throw FakeErrors.io(dir.resolve(CURRENT), e);
    } catch (NumberFormatException e) {
      throw FakeErrors.corrupt(dir.resolve(CURRENT), "not a version number");
    }
  }

  /** The catalog of the current version, retrying when a writer replaced it meanwhile. */
  Catalog load() {
    NoSuchFileException last = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      long version = currentVersion();
      if (version < 0) {
        throw FakeErrors.notADatabase(dir);
      }
      Path manifest = dir.resolve(manifestName(version));
      try (FastInput in = new FastInput(Files.newInputStream(manifest), 1 << 16)) {
        return CatalogCodec.read(in);
      } catch (java.io.UncheckedIOException e) {
        if (e.getCause() instanceof NoSuchFileException nsf) {
          last = nsf;
          continue;
        }
        throw FakeErrors.corrupt(manifest, e.getMessage());
      } catch (NoSuchFileException e) {
        last = e;
      } catch (IOException e) {
        throw FakeErrors.io(manifest, e);
      } catch (IllegalStateException e) {
        throw FakeErrors.corrupt(manifest, e.getMessage());
      }
    }
    throw FakeErrors.io(dir.resolve(CURRENT), last);
  }

  /** Writes the catalog as a new manifest, then makes it current (the commit point). */
  void publish(Catalog catalog) {
    writeAtomically(manifestName(catalog.version), out -> CatalogCodec.write(out, catalog));
    writeAtomically(CURRENT, out -> out.write((catalog.version + "\n").getBytes(StandardCharsets.US_ASCII)));
    long old = catalog.version - KEEP_VERSIONS;
    if (old >= 0) {
      deleteQuietly(manifestName(old));
    }
  }

  interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  /** Writes {@code relative} under a temporary name and renames it into place atomically. */
  void writeAtomically(String relative, Body body) {
    Path target = dir.resolve(relative);
    Path tmp = dir.resolve(TMP).resolve(UUID.randomUUID() + ".tmp");
    try {
      Files.createDirectories(target.getParent());
      Files.createDirectories(tmp.getParent());
      try (OutputStream os = Files.newOutputStream(tmp);
          DataOutputStream out = new DataOutputStream(new BufferedOutputStream(os, 1 << 16))) {
        body.write(out);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw FakeErrors.io(target, e);
      }
    } catch (IOException e) {
      deleteQuietly(TMP + "/" + tmp.getFileName());
      throw FakeErrors.io(target, e);
    }
  }

  void deleteQuietly(String relative) {
    try {
      Files.deleteIfExists(dir.resolve(relative));
    } catch (IOException e) {
      // best effort: an orphan file only costs disk space
    }
  }
}
