package io.mssqlcdc.catalog;

/**
 * {@code _change_type} of a change row, from its {@code __$operation}: 1 delete, 2 insert,
 * 3 update pre-image, 4 update post-image (the values of Spark's change-data API).
 */
public final class ChangeTypes {
  public static final String INSERT = "insert";
  public static final String DELETE = "delete";
  public static final String UPDATE_PREIMAGE = "update_preimage";
  public static final String UPDATE_POSTIMAGE = "update_postimage";

  private ChangeTypes() {}

  /** The change type of operation {@code op}; fails on any other operation (snapshot rows are 0). */
  public static String of(int op) {
    return switch (op) {
      case 1 -> DELETE;
      case 2 -> INSERT;
      case 3 -> UPDATE_PREIMAGE;
      case 4 -> UPDATE_POSTIMAGE;
      default -> throw new IllegalStateException("__$operation " + op + " is no change of a change table (1-4)");
    };
  }
}
