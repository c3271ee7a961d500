/*
  switch_capture_instance.sql: move a CDC table to a new capture instance without stopping its streams
  (reference §11, §24; ADR 0023). A DBA procedure to run STEP BY STEP, not unattended.

  When: CDC does not follow schema changes. A column added after the instance was created is not
  captured; a new capture instance captures the table as it is now. SQL Server allows two instances per
  table; running streams follow the newer one on their own (they cut over at its start LSN S: commits
  below S are read from the old instance, from S on from the new one).

  Set the names first (sqlcmd variables: sqlcmd -v SCHEMA=dbo TABLE=orders OLD=dbo_orders NEW=dbo_orders_v2
  READER=cdc_reader -d sales -i ...), or edit them below. Run each step separately.
*/

-- STEP 1: create the new capture instance (db_owner). It waits for open transactions that already wrote
-- the table; those land only in the old instance, below S. Use the old instance's gating role (or NULL)
-- and @captured_column_list = NULL to capture every column.
EXEC sys.sp_cdc_enable_table
  @source_schema = N'$(SCHEMA)',
  @source_name = N'$(TABLE)',
  @capture_instance = N'$(NEW)',
  @role_name = NULL,
  @captured_column_list = NULL,
  @supports_net_changes = 0;

-- STEP 2: let the reader read it (each capture instance has its own change table and needs its own grant).
GRANT SELECT ON cdc.[$(NEW)_CT] TO [$(READER)];

-- STEP 3: check both instances. The new one's min LSN is 0x00000000000000000000 until capture processes
-- the enable (seconds under load, up to ~5 minutes on an idle database): wait until it is not.
EXEC sys.sp_cdc_help_change_data_capture @source_schema = N'$(SCHEMA)', @source_name = N'$(TABLE)';
SELECT CONVERT(varchar(22), sys.fn_cdc_get_min_lsn(N'$(NEW)'), 1) AS new_min_lsn;

-- STEP 4: wait until EVERY stream of the table has passed S: each writes a 'capture_instance_switched'
-- event (facts table) or logs a warning naming the new instance, then runs one more batch. Streams
-- started after S write none. Until step 5 both instances capture every change (double writes).

-- STEP 5: disable the old instance (db_owner). Too early, and a stream that has not passed S fails with
-- a data-loss error (its changes below S are gone with the old change table).
EXEC sys.sp_cdc_disable_table
  @source_schema = N'$(SCHEMA)',
  @source_name = N'$(TABLE)',
  @capture_instance = N'$(OLD)';
