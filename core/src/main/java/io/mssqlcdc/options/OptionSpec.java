package io.mssqlcdc.options;

import java.util.List;
import java.util.function.BiFunction;

/**
 * One option, declared once: its name (lowerCamel, matched ignoring case), accepted aliases, the
 * type and default as documented, what it does, which readers take it, and its parser. The
 * parser receives the option's declared name and the raw value and throws a {@link
 * io.mssqlcdc.errors.CdcConfigException} naming both when the value is bad.
 *
 * @param <T> parsed type
 */
public record OptionSpec<T>(
    String name, List<String> aliases, String type, String defaultText, String doc, Scope scope,
    BiFunction<String, String, T> parser) {

  /** Which readers take an option. */
  public enum Scope {
    /** Both {@code mssql_cdc} and {@code mssql_cdc_snapshot}. */
    BOTH("stream, snapshot"),
    /** {@code mssql_cdc}; the snapshot reader accepts and ignores it, so one options map serves both. */
    STREAM("stream"),
    /** {@code mssql_cdc_snapshot} only; the stream rejects it. */
    SNAPSHOT("snapshot");

    private final String doc;

    Scope(String doc) {
      this.doc = doc;
    }

    public String doc() {
      return doc;
    }
  }

  public OptionSpec {
    aliases = List.copyOf(aliases);
  }

  public T parse(String raw) {
    return parser.apply(name, raw);
  }
}
