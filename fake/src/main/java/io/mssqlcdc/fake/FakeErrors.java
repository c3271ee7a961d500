package io.mssqlcdc.fake;

import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcErrorCode;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.CdcStateException;
import java.nio.file.Path;
import java.util.Collection;

/**
 * Every message the fake raises, written once. Script mistakes (a value that does not fit its
 * column, an unknown table) are {@link CdcConfigException}s; unusable files are {@link
 * CdcStateException}s through {@link CdcErrors#fakeState}. Conditions SQL Server itself raises
 * quote SQL Server's wording so tests read the same against both.
 */
final class FakeErrors {
  private FakeErrors() {}

  static CdcStateException notADatabase(Path dir) {
    return CdcErrors.fakeState(dir.toString(),
        "no fake CDC database here (no " + FakeFormat.FORMAT_FILE + " file). Create one with"
            + " FakeCdcDatabase.create(dir), or fix fakePath.");
  }

  static CdcStateException alreadyExists(Path dir) {
    return CdcErrors.fakeState(dir.toString(),
        "a fake CDC database already exists here. Use FakeCdcDatabase.open(dir), or create it in an empty directory.");
  }

  static CdcStateException formatTooNew(Path dir, int found, int supported) {
    return CdcErrors.fakeState(dir.toString(),
        "on-disk format version " + found + " is newer than this library reads (up to " + supported
            + "): it was written by a newer mssql-cdc-fake. Upgrade the fake, or recreate the directory.");
  }

  static CdcStateException corrupt(Path file, String reason) {
    return CdcErrors.fakeState(file.toString(), "unreadable (" + reason
        + "). The fake's files are written by FakeCdcDatabase only; recreate the directory.");
  }

  static CdcStateException io(Path file, Exception cause) {
    return new CdcStateException(CdcErrorCode.FAKE_STATE,
        "Fake CDC database at " + file + ": " + cause.getClass().getSimpleName() + ": " + cause.getMessage(), cause);
  }

  static CdcConfigException unknownTable(String table, Collection<String> known) {
    return config("Table '" + table + "' does not exist in the fake database (tables: "
        + (known.isEmpty() ? "none" : String.join(", ", known)) + "). Create it with createTable first.");
  }

  static CdcConfigException tableExists(String table) {
    return config("There is already an object named '" + table + "' in the database.");
  }

  static CdcConfigException badColumnDeclaration(String declaration, String reason) {
    return config("Invalid column declaration '" + declaration + "': " + reason
        + ". Write '<name> <type>[ computed]', e.g. 'amount decimal(18,2)'.");
  }

  static CdcConfigException unknownColumn(String table, String column, Collection<String> known) {
    return config("Invalid column name '" + column + "'. " + table + " has columns " + String.join(", ", known) + ".");
  }

  static CdcConfigException duplicateColumn(String table, String column) {
    return config("Column names in each table must be unique. Column name '" + column + "' in table '" + table
        + "' is specified more than once.");
  }

  static CdcConfigException valueDoesNotFit(String table, String column, String type, Object value, String reason) {
    return config(table + "." + column + " (" + type + "): value " + describe(value) + " does not fit: " + reason + ".");
  }

  static CdcConfigException duplicateKey(String table, Object key) {
    return config("Violation of PRIMARY KEY constraint on " + table + ". Cannot insert duplicate key " + key
        + ". Update or delete the existing row instead.");
  }

  static CdcConfigException noSuchRow(String table, Object key, String op) {
    return config("Cannot " + op + " row " + key + " of " + table + ": no such row. Insert it first.");
  }

  static CdcConfigException keyRequired(String table, String op) {
    return config("Cannot " + op + " by key on " + table + ": it has no unique key. Declare one with"
        + " createTable(...).key(...), or pass the whole row.");
  }

  static CdcConfigException badKey(String table, Object key, int expected) {
    return config("Key " + key + " of " + table + " must have " + expected + " value(s), one per key column.");
  }

  static CdcConfigException instanceExists(String name) {
    return config("Could not create a capture instance because the capture instance name '" + name
        + "' already exists in the current database. Specify an explicit unique name for @capture_instance.");
  }

  static CdcConfigException twoInstancesAlready(String table) {
    return config("Could not create a capture instance because two capture instances already exist for source table '"
        + table + "'. A table can have at most two capture instances. Disable one of them first.");
  }

  static CdcConfigException unknownInstance(String name, Collection<String> known) {
    return config("Capture instance '" + CdcErrors.printable(name) + "' does not exist in the fake database (instances: "
        + (known.isEmpty() ? "none" : String.join(", ", known)) + ").");
  }

  static CdcConfigException cleanupBackwards(String instance, String requested, String current) {
    return config("The specified @low_water_mark " + requested + " for capture instance '" + instance
        + "' is below its current low water mark " + current + ": cleanup only moves it forward.");
  }

  static CdcConfigException invalidArgument(String what, Object value, String expected) {
    return config(what + " must be " + expected + ", not " + describe(value) + ".");
  }

  static CdcConfigException invalidTimeZone(String zone) {
    return config("Invalid time zone '" + CdcErrors.printable(zone)
        + "': use an IANA zone id such as 'UTC' or 'America/Sao_Paulo', or a fixed offset such as 'UTC-03:00'.");
  }

  static CdcConfigException columnNotInTable(String table, String column, Collection<String> known) {
    return config("Invalid column name '" + column + "' (" + table + " has " + String.join(", ", known)
        + "). Leave dropped and computed columns out of the read.");
  }

  static CdcConfigException alterDroppedColumn(String table, String column) {
    return config("Cannot alter or drop column '" + column + "' of " + table + ": it was dropped already.");
  }

  static CdcConfigException cleanupPastCapture(String instance, String requested, String oldestHeld) {
    return config("The specified @low_water_mark " + requested + " for capture instance '" + instance
        + "' is past " + oldestHeld + ", the oldest commit capture has not processed yet: cleanup cannot remove"
        + " what capture has not written. Start the capture job or let it catch up first.");
  }

  static CdcConfigException captureHeld(String what) {
    return config("The fake cannot " + what + " while its capture job is stopped or behind (stopCapture,"
        + " lagCapture): start it or let it catch up first (startCapture, catchUpCapture).");
  }

  private static CdcConfigException config(String message) {
    return new CdcConfigException(CdcErrorCode.INVALID_OPTION, message);
  }

  static String describe(Object value) {
    if (value == null) {
      return "NULL";
    }
    String text = value instanceof byte[] b ? "<" + b.length + " bytes>" : String.valueOf(value);
    if (text.length() > 60) {
      text = text.substring(0, 57) + "...";
    }
    return "'" + CdcErrors.printable(text) + "' (" + value.getClass().getSimpleName() + ")";
  }
}
