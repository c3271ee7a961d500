package io.mssqlcdc.fake;

import io.mssqlcdc.types.SqlServerType;
import java.util.Locale;

/** A script's column declaration: {@code <name> <type>[ computed]}, e.g. {@code amount decimal(18,2)}. */
record ColumnDeclaration(String name, SqlServerType type, boolean computed) {

  static ColumnDeclaration parse(String declaration) {
    if (declaration == null || declaration.isBlank()) {
      throw FakeErrors.badColumnDeclaration(String.valueOf(declaration), "it is empty");
    }
    String s = declaration.strip();
    int space = s.indexOf(' ');
    if (space < 0) {
      throw FakeErrors.badColumnDeclaration(declaration, "no type after the name");
    }
    String name = s.substring(0, space);
    if (name.startsWith("[") && name.endsWith("]")) {
      name = name.substring(1, name.length() - 1);
    }
    String rest = s.substring(space + 1).strip();
    boolean computed = false;
    String lower = rest.toLowerCase(Locale.ROOT);
    if (lower.endsWith(" computed")) {
      computed = true;
      rest = rest.substring(0, rest.length() - " computed".length()).strip();
    }
    return new ColumnDeclaration(name, type(declaration, rest), computed);
  }

  static SqlServerType type(String declaration, String typeText) {
    SqlServerType type;
    try {
      type = SqlServerType.parse(typeText.replace(" ", ""));
    } catch (RuntimeException e) {
      throw FakeErrors.badColumnDeclaration(declaration, "cannot read type '" + typeText + "'");
    }
    if (!ValueCoercion.SUPPORTED.contains(type.name())) {
      throw FakeErrors.badColumnDeclaration(declaration,
          "type '" + type.name() + "' is not modelled (supported: " + String.join(", ", new java.util.TreeSet<>(ValueCoercion.SUPPORTED)) + ")");
    }
    return type;
  }
}
