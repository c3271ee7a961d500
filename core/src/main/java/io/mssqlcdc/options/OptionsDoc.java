package io.mssqlcdc.options;

/** Renders the options reference (docs/OPTIONS.md) from the declarations. */
public final class OptionsDoc {
  private OptionsDoc() {}

  /** The Markdown table of {@link CdcReaderOptions#ALL}. */
  public static String readerOptionsTable() {
    StringBuilder sb = new StringBuilder();
    sb.append("| Option | Type | Default | Read by | Meaning |\n");
    sb.append("|---|---|---|---|---|\n");
    for (OptionSpec<?> s : CdcReaderOptions.ALL) {
      String name = "`" + s.name() + "`";
      if (!s.aliases().isEmpty()) {
        name += " (alias `" + String.join("`, `", s.aliases()) + "`)";
      }
      sb.append("| ").append(name).append(" | ").append(s.type()).append(" | ").append(s.defaultText())
          .append(" | ").append(s.scope().doc()).append(" | ").append(s.doc().replace("|", "\\|")).append(" |\n");
    }
    return sb.toString();
  }
}
