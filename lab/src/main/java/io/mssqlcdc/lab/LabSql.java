package io.mssqlcdc.lab;

/** The lab's T-SQL (setup of reference §24 {@code 00_setup.sql}, and the workload statements). */
final class LabSql {
  private LabSql() {}

  static String createDatabase(String db) {
    return "IF DB_ID(N'" + db + "') IS NULL CREATE DATABASE [" + db + "]";
  }

  static final String ENABLE_DB =
      "IF (SELECT is_cdc_enabled FROM sys.databases WHERE database_id = DB_ID()) = 0 EXEC sys.sp_cdc_enable_db";

  static final String CUSTOMERS =
      "IF OBJECT_ID(N'dbo.customers', N'U') IS NULL CREATE TABLE dbo.customers (customer_id INT NOT NULL PRIMARY KEY,"
          + " name NVARCHAR(120) NOT NULL, email NVARCHAR(200) NOT NULL, city NVARCHAR(80) NULL,"
          + " created_at DATETIME2(3) NOT NULL DEFAULT SYSUTCDATETIME())";

  static final String ORDERS =
      "IF OBJECT_ID(N'dbo.orders', N'U') IS NULL CREATE TABLE dbo.orders (order_id INT NOT NULL PRIMARY KEY,"
          + " customer_id INT NOT NULL, status VARCHAR(20) NOT NULL, amount DECIMAL(18,2) NOT NULL,"
          + " created_at DATETIME2(3) NOT NULL DEFAULT SYSUTCDATETIME(), updated_at DATETIME2(3) NULL)";

  static String enableTable(String table) {
    return "IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE source_object_id = OBJECT_ID(N'dbo." + table + "'))"
        + " EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'" + table + "', @role_name = NULL,"
        + " @supports_net_changes = 0";
  }

  static final String MAX_ORDER_ID = "SELECT ISNULL(MAX(order_id), 0) FROM dbo.orders";
  static final String MAX_CUSTOMER_ID = "SELECT ISNULL(MAX(customer_id), 0) FROM dbo.customers";
  static final String INSERT_CUSTOMER = "INSERT INTO dbo.customers (customer_id, name, email, city) VALUES (?, ?, ?, ?)";
  static final String INSERT_ORDER = "INSERT INTO dbo.orders (order_id, customer_id, status, amount) VALUES (?, ?, ?, ?)";
  static final String UPDATE_ORDER = "UPDATE dbo.orders SET status = ?, amount = ?, updated_at = SYSUTCDATETIME() WHERE order_id = ?";
  static final String DELETE_ORDER = "DELETE FROM dbo.orders WHERE order_id = ?";
}
