package io.mssqlcdc.sink.pipeline;

import java.util.Optional;

/**
 * What {@code CdcStream} tells a {@link StreamAttachment} about a stream it started.
 *
 * @param target the bronze table, as given (name or path)
 * @param appId the base app id
 * @param sinkId the sink id of the generation running ({@code <app_id>} or {@code <app_id>.g<n>})
 * @param generation the checkpoint generation
 * @param captureInstance the capture instance, as configured
 * @param factsTable the facts table, if any
 */
public record StartedStream(
    String target, String appId, String sinkId, int generation, String captureInstance, Optional<String> factsTable) {}
