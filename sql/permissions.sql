/*
  permissions.sql: a least-privilege login for mssql-cdc-spark (reference §23, ADR 0009).

  What the reader needs, and nothing more:
    * SELECT on the source table (or on its key and captured columns): required by
      sys.sp_cdc_help_change_data_capture, sys.sp_cdc_get_captured_columns, sys.sp_cdc_get_ddl_history
      and sys.fn_cdc_get_min_lsn; snapshots read the table itself.
    * membership in the capture instance's gating role, if it has one (@role_name of sp_cdc_enable_table).
    * SELECT on the change table cdc.[<capture instance>_CT], one grant PER capture instance: the reader
      reads the change table directly (ordering by __$command_id needs it), which bypasses the query
      functions' ownership chain. A new capture instance (sql/switch_capture_instance.sql) needs its own.
  No grant is needed for cdc.lsn_time_mapping, sys.fn_cdc_get_max_lsn, fn_cdc_increment_lsn/decrement_lsn,
  fn_cdc_map_*, the time zone functions, sys.columns of a
  table the login can SELECT, sys.sp_spaceused of such a table (granted to public), HAS_PERMS_BY_NAME.
  Optional: sys.dm_exec_session_wait_stats (the network_wait_ms figure of each range) needs
    VIEW SERVER PERFORMANCE STATE on SQL Server 2022 and later (VIEW SERVER STATE before); without it the
    figure is empty and nothing else changes. To have it: GRANT VIEW SERVER PERFORMANCE STATE TO [login] (in master).
  Never needed: write access, db_owner, VIEW SERVER STATE, msdb, other cdc.* tables.
  Snapshots with isolationLevel=snapshot need ALTER DATABASE ... SET ALLOW_SNAPSHOT_ISOLATION ON (a DBA, once).

  Replace the names below (sqlcmd variables: sqlcmd -v LOGIN=cdc_reader PASSWORD="..." SCHEMA=dbo
  TABLE=orders CAPTURE_INSTANCE=dbo_orders -d sales -i sql/permissions.sql). Run in the CDC database.
  Keep the password out of shell history and put it in the connection string braced: PWD={...}, with
  '}' doubled.
*/
SET NOCOUNT ON;

-- 1. The login (server level; skip on Azure SQL Database contained users: CREATE USER ... WITH PASSWORD).
IF SUSER_ID(N'$(LOGIN)') IS NULL
  CREATE LOGIN [$(LOGIN)] WITH PASSWORD = N'$(PASSWORD)';

-- 2. Its user in the CDC database.
IF USER_ID(N'$(LOGIN)') IS NULL
  CREATE USER [$(LOGIN)] FOR LOGIN [$(LOGIN)];

-- 3. The source table.
GRANT SELECT ON [$(SCHEMA)].[$(TABLE)] TO [$(LOGIN)];

-- 4. The change table of each capture instance the login reads.
GRANT SELECT ON cdc.[$(CAPTURE_INSTANCE)_CT] TO [$(LOGIN)];

-- 5. If the capture instance has a gating role (see role_name in sys.sp_cdc_help_change_data_capture):
-- ALTER ROLE [<gating role>] ADD MEMBER [$(LOGIN)];

-- Check: run as the login. Both must return rows / 1.
-- EXECUTE AS USER = N'$(LOGIN)';
--   EXEC sys.sp_cdc_help_change_data_capture;
--   SELECT HAS_PERMS_BY_NAME(N'cdc.[$(CAPTURE_INSTANCE)_CT]', 'OBJECT', 'SELECT');
-- REVERT;
