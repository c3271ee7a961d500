package io.mssqlcdc.standin;

import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;

/**
 * The Windows time zone names the stand-in knows ({@code sys.time_zone_info} names, which is all
 * {@code AT TIME ZONE} and {@code CURRENT_TIMEZONE_ID()} use, on Linux too), with their java.time
 * zones. A name outside the list fails like SQL Server does for an unknown name (error 9820),
 * IANA names included.
 */
final class WindowsZones {
  private static final Map<String, String> ZONES = Map.ofEntries(
      Map.entry("UTC", "UTC"),
      Map.entry("E. South America Standard Time", "America/Sao_Paulo"),
      Map.entry("Eastern Standard Time", "America/New_York"),
      Map.entry("Central Standard Time", "America/Chicago"),
      Map.entry("Pacific Standard Time", "America/Los_Angeles"),
      Map.entry("GMT Standard Time", "Europe/London"),
      Map.entry("W. Europe Standard Time", "Europe/Berlin"),
      Map.entry("Central European Standard Time", "Europe/Warsaw"),
      Map.entry("Tokyo Standard Time", "Asia/Tokyo"),
      Map.entry("India Standard Time", "Asia/Kolkata"),
      Map.entry("AUS Eastern Standard Time", "Australia/Sydney"));

  private WindowsZones() {}

  /** The zone of a Windows name (matched ignoring case, as SQL Server does), or empty. */
  static Optional<ZoneId> zone(String windowsName) {
    for (Map.Entry<String, String> e : ZONES.entrySet()) {
      if (e.getKey().equalsIgnoreCase(windowsName.strip())) {
        return Optional.of(ZoneId.of(e.getValue()));
      }
    }
    return Optional.empty();
  }

  /** The Windows name of a java.time zone id, as CURRENT_TIMEZONE_ID() returns it, or empty. */
  static Optional<String> name(String zoneId) {
    String id = ZoneId.of(zoneId).normalized().getId();
    if (id.equals("Z") || id.equals("UTC") || id.equals("GMT") || id.equals("Etc/UTC")) {
      return Optional.of("UTC");
    }
    return ZONES.entrySet().stream().filter(e -> e.getValue().equals(zoneId)).map(Map.Entry::getKey).findFirst();
  }
}
