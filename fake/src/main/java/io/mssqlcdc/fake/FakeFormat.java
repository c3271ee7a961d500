package io.mssqlcdc.fake;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The format version file ({@code FORMAT}: {@code mssql-cdc-fake <n>}). Written once at
 * create; every open checks it and refuses newer versions.
 */
final class FakeFormat {
  private FakeFormat() {}

  static final String FORMAT_FILE = "FORMAT";
  static final int VERSION = 1;
  private static final String PREFIX = "mssql-cdc-fake ";

  static void write(Path dir) throws IOException {
    Files.writeString(dir.resolve(FORMAT_FILE), PREFIX + VERSION + "\n", StandardCharsets.UTF_8);
  }

  static void check(Path dir) {
    String text;
    try {
      text = Files.readString(dir.resolve(FORMAT_FILE), StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      throw FakeErrors.notADatabase(dir);
    } catch (IOException e) {
      throw FakeErrors.io(dir.resolve(FORMAT_FILE), e);
    }
    if (!text.startsWith(PREFIX)) {
      throw FakeErrors.corrupt(dir.resolve(FORMAT_FILE), "expected '" + PREFIX + "<version>', found '" + text + "'");
    }
    int found;
    try {
      found = Integer.parseInt(text.substring(PREFIX.length()).strip());
    } catch (NumberFormatException e) {
      throw FakeErrors.corrupt(dir.resolve(FORMAT_FILE), "version '" + text.substring(PREFIX.length()) + "' is no number");
    }
    if (found > VERSION) {
      throw FakeErrors.formatTooNew(dir, found, VERSION);
    }
    if (found < 1) {
      throw FakeErrors.corrupt(dir.resolve(FORMAT_FILE), "version " + found + " does not exist");
    }
  }
}
