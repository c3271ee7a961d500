package io.mssqlcdc.silver;

import io.mssqlcdc.finalization.Finalization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The arguments {@link ApplyChanges} and {@link ApplyHistory} share (the same names, meanings and
 * checks, {@link CallArguments}): each builder extends this with its own and its {@code run()}.
 * Public only so that its setters are callable on the builders by reflection (Py4J); not for
 * subclassing outside this package.
 *
 * @param <B> the builder itself, which the setters return
 */
public abstract class SilverCallBuilder<B extends SilverCallBuilder<B>> {
  final SparkSession spark;
  private String bronze;
  private String target;
  private String captureInstance;
  private List<String> keys;
  private String controlTable;
  private String factsTable;
  private final Map<String, String> options = new LinkedHashMap<>();
  private String granularity = Finalization.DEFAULT_GRANULARITY;

  SilverCallBuilder(SparkSession spark) {
    this.spark = spark;
  }

  abstract B self();

  /** The bronze table, named exactly as the stream's target. Required. */
  public B bronze(String nameOrPath) {
    this.bronze = nameOrPath;
    return self();
  }

  /** The table the call writes (silver, or the history). Required. */
  public B target(String nameOrPath) {
    this.target = nameOrPath;
    return self();
  }

  /** The stream's capture instance; default the options' {@code captureInstance}. */
  public B captureInstance(String captureInstance) {
    this.captureInstance = captureInstance;
    return self();
  }

  /** The key columns; default the capture instance's unique index (read through the options). */
  public B keys(List<String> keyColumns) {
    this.keys = keyColumns == null ? null : new ArrayList<>(keyColumns);
    return self();
  }

  /** The control table (the target's position and verdict; bronze's verdict). Required. */
  public B controlTable(String nameOrPath) {
    this.controlTable = nameOrPath;
    return self();
  }

  /** The stream's facts table; without it the verdict is not advanced. */
  public B factsTable(String nameOrPath) {
    this.factsTable = nameOrPath;
    return self();
  }

  /** One of the stream's reader options (names any case). */
  public B option(String key, String value) {
    options.keySet().removeIf(k -> k.equalsIgnoreCase(key));
    options.put(key, value);
    return self();
  }

  /** The stream's reader options, as {@link #option} one by one. */
  public B options(Map<String, String> readerOptions) {
    if (readerOptions != null) {
      readerOptions.forEach(this::option);
    }
    return self();
  }

  /** {@code minute}, {@code hour} (default) or {@code day}. */
  public B granularity(String granularity) {
    this.granularity = granularity;
    return self();
  }

  /** The shared arguments checked ({@code kind} names the target in messages: "silver", "history"). */
  CallArguments checked(String kind) {
    return CallArguments.check(spark, kind, bronze, target, controlTable, factsTable, captureInstance, keys, options,
        granularity);
  }
}
