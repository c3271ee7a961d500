package io.mssqlcdc.client;

import io.mssqlcdc.types.SqlServerType;
import java.io.Serializable;

/**
 * A column a capture instance captures ({@code sys.sp_cdc_get_captured_columns}).
 *
 * @param name column name, as SQL Server spells it
 * @param ordinal {@code column_ordinal} in the change table (1-based, capture order)
 * @param columnId {@code column_id} in the source table when captured; a column dropped and
 *     re-added under the same name has another id
 * @param type its SQL Server type (the current one: ALTER COLUMN changes it)
 * @param computed whether the source column is computed ({@code sys.columns.is_computed});
 *     CDC stores NULL for computed columns in every change row
 */
public record CapturedColumn(String name, int ordinal, int columnId, SqlServerType type, boolean computed)
    implements Serializable {}
