package io.mssqlcdc.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The table printed at the end of a run, and the JSON written next to it. */
public final class Report {
  private Report() {}

  /**
   * The figures as a fixed-width table; the jobs column holds the Spark jobs per unit of work
   * (per steady micro-batch, per call) of the candidate / the baseline, where the case counts them.
   */
  public static String table(List<Figure> figures) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"case", "figure", "value", "baseline", "baseline value", "ratio", "spread", "jobs", "target",
        ""});
    for (Figure f : figures) {
      if (f.status().equals(Figure.PENDING)) {
        rows.add(new String[] {f.caseId(), f.name(), "pending", "", "", "", "", "", "", ""});
        continue;
      }
      if (f.status().equals("failed")) {
        rows.add(new String[] {f.caseId(), f.name(), "FAILED", "", "", "", "", "", "", ""});
        continue;
      }
      rows.add(new String[] {
          f.caseId(), f.name(), value(f.value(), f.metric()), f.baseline() == null ? "" : f.baseline(),
          f.baselineValue() == null ? "" : value(f.baselineValue(), f.metric()),
          f.ratio() == null ? "" : String.format(Locale.ROOT, "%.2f", f.ratio()),
          f.ratioMin() == null || f.reps() < 2 ? ""
              : String.format(Locale.ROOT, "%.2f-%.2f (%d)", f.ratioMin(), f.ratioMax(), f.reps()),
          f.jobsText(),
          f.target() == null ? "" : f.target(),
          f.meetsTarget() == null ? "" : f.meetsTarget() ? "met" : "NOT MET"});
    }
    int[] w = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        w[i] = Math.max(w[i], Math.max(1, r[i].length())); // "%-0s" is no format: an all-empty column is 1 wide
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < rows.size(); k++) {
      String[] r = rows.get(k);
      for (int i = 0; i < r.length; i++) {
        boolean numeric = i == 2 || i == 4 || i == 5;
        String cell = numeric ? String.format("%" + w[i] + "s", r[i]) : String.format("%-" + w[i] + "s", r[i]);
        sb.append(cell).append(i < r.length - 1 ? "  " : "");
      }
      sb.append(System.lineSeparator());
      if (k == 0) {
        for (int i = 0; i < w.length; i++) {
          sb.append("-".repeat(w[i])).append(i < w.length - 1 ? "  " : "");
        }
        sb.append(System.lineSeparator());
      }
    }
    for (Figure f : figures) {
      if (f.status().equals(Figure.PENDING) || f.status().equals("failed")) {
        sb.append(f.caseId()).append(": ").append(f.note()).append(System.lineSeparator());
      }
    }
    return sb.toString();
  }

  private static String value(Double v, String metric) {
    if (v == null) {
      return "";
    }
    if (metric.equals("rows/s")) {
      return String.format(Locale.ROOT, "%,.0f rows/s", v);
    }
    return String.format(Locale.ROOT, "%,.2f %s", v, metric);
  }

  /** The run as JSON: when, where, with what, and every figure. */
  public static Map<String, Object> json(BenchConfig config, Instant started, double loadBefore, double loadAfter,
      List<Figure> figures) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("startedAt", started.toString());
    m.put("finishedAt", Instant.now().toString());
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    machine.put("loadAverageBefore", loadBefore);
    machine.put("loadAverageAfter", loadAfter);
    machine.put("java", System.getProperty("java.version"));
    machine.put("maxHeapMb", Runtime.getRuntime().maxMemory() >> 20);
    machine.put("spark", org.apache.spark.package$.MODULE$.SPARK_VERSION());
    m.put("machine", machine);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("cases", config.cases());
    c.put("reps", config.reps());
    c.put("warmups", config.warmups());
    c.put("narrowRows", config.narrowRows());
    c.put("wideRows", config.wideRows());
    c.put("bigTxRows", config.bigTxRows());
    c.put("smallTxRows", config.smallTxRows());
    c.put("latencySeconds", config.latencySeconds());
    c.put("microRows", config.microRows());
    c.put("bronzeNarrowRows", config.bronzeNarrowRows());
    c.put("bronzeWideRows", config.bronzeWideRows());
    c.put("bronzeBatchRows", config.bronzeBatchRows());
    c.put("bronzeBatches", config.bronzeBatches());
    c.put("factsCommitMillis", config.factsCommitMillis());
    c.put("jdbcRows", config.jdbcRows());
    c.put("silverChanges", config.silverChanges());
    c.put("silverBatch", config.silverBatch());
    m.put("config", c);
    m.put("figures", figures);
    return m;
  }

  /** Writes {@code json} to {@code dir/results-<time>.json} and {@code dir/results.json}; returns the first. */
  public static Path write(Path dir, Map<String, Object> json) {
    try {
      Files.createDirectories(dir);
      ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      String text = mapper.writeValueAsString(json);
      String stamp = ((String) json.get("startedAt")).replace(":", "").replace("-", "");
      Path file = dir.resolve("results-" + stamp + ".json");
      Files.writeString(file, text);
      Files.writeString(dir.resolve("results.json"), text);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }
}
