package io.mssqlcdc.fake;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serialises writers of one directory: a JVM-wide lock per directory (file locks are held per
 * process, and a second lock from the same JVM would throw) plus an exclusive
 * {@link FileChannel#lock()} on {@code writer.lock} against other processes. Readers never
 * take it.
 */
final class WriterLock {
  static final String LOCK_FILE = "writer.lock";
  private static final ConcurrentHashMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

  private WriterLock() {}

  /** Held until closed. */
  static final class Held implements AutoCloseable {
    private final ReentrantLock jvmLock;
    private final FileChannel channel;
    private final FileLock fileLock;

    private Held(ReentrantLock jvmLock, FileChannel channel, FileLock fileLock) {
      this.jvmLock = jvmLock;
      this.channel = channel;
      this.fileLock = fileLock;
    }

    @Override
    public void close() {
      try {
        fileLock.release();
        channel.close();
      } catch (IOException e) {
        // closing the channel releases the lock anyway
      } finally {
        jvmLock.unlock();
      }
    }
  }

  static Held acquire(Path dir) {
    ReentrantLock jvmLock = IN_JVM.computeIfAbsent(dir, d -> new ReentrantLock());
    jvmLock.lock();
    FileChannel channel = null;
    try {
      channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      return new Held(jvmLock, channel, channel.lock());
    } catch (IOException e) {
      try {
        if (channel != null) {
          channel.close();
        }
      } catch (IOException ignored) {
        // already failing
      }
      jvmLock.unlock();
      throw FakeErrors.io(dir.resolve(LOCK_FILE), e);
    }
  }
}
