package io.mssqlcdc.sink.pipeline;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * Something that follows a stream {@code CdcStream} started: called once, right after the query
 * started, on the caller's thread. The finalization module's tracker is one
 * ({@code Finalization.tracking(controlTable, granularity)}): it advances {@code finalized_until}
 * after each progress of the query. An attachment must not block; it runs its own thread if it
 * needs one, and stops when the query terminates.
 */
@FunctionalInterface
public interface StreamAttachment {
  /** Starts following {@code query}, which writes {@code stream.target()}. */
  void attach(SparkSession spark, StreamingQuery query, StartedStream stream);
}
