package io.mssqlcdc.finalization;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A one-item handoff where the newest item wins: {@link #offer} replaces an item still waiting
 * (for progress, the newest end offset implies the older ones), {@link #take} waits for one.
 * After {@link #close} offers are ignored, and {@link #take} hands out what is left, then
 * reports the slot drained.
 */
final class LatestSlot<T> {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private T item;
  private boolean closed;
  private long offered;
  private long replaced;

  /** Puts {@code value} in the slot, replacing one waiting; ignored when null or closed. */
  void offer(T value) {
    if (value == null) {
      return;
    }
    lock.lock();
    try {
      if (closed) {
        return;
      }
      offered++;
      if (item != null) {
        replaced++;
      }
      item = value;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** No more offers: {@link #take} returns what is left, then null with {@link #drained()} true. */
  void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The waiting item, removed; waits up to {@code timeoutNanos} for one. Null on timeout, on an
   * interrupt, or when the slot is closed and empty.
   */
  T take(long timeoutNanos) {
    lock.lock();
    try {
      long left = timeoutNanos;
      while (item == null && !closed && left > 0) {
        try {
          left = changed.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return null;
        }
      }
      T out = item;
      item = null;
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** Closed, with nothing left to take. */
  boolean drained() {
    lock.lock();
    try {
      return closed && item == null;
    } finally {
      lock.unlock();
    }
  }

  boolean closed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Items offered (accepted) so far. */
  long offered() {
    lock.lock();
    try {
      return offered;
    } finally {
      lock.unlock();
    }
  }

  /** Items replaced by a newer one before they were taken. */
  long replaced() {
    lock.lock();
    try {
      return replaced;
    } finally {
      lock.unlock();
    }
  }
}
