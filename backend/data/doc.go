// Package data is "your data" for the agent: files the user attaches to a
// session (CSV, TSV, a JSON array of objects, JSON Lines, Excel workbooks)
// become tables in a per-session SQLite file, which the model inspects with
// list_data, queries with query_data, and charts through named datasets.
//
// # Storage
//
// One DB per session, one SQLite file, created 0600 in a 0700 folder, WAL.
// All writes (imports only) go through a single writer connection; queries
// run on a separate pool opened read-only. A DB is safe for concurrent use.
// What each table came from is kept in the table _agentdeck_tables, so a
// reopened DB lists the same tables. Named query results (datasets) live in
// memory only and are gone when the DB is closed. Attach, Query and
// Datasets use the limits set with SetLimits (DefaultLimits until then);
// Tools takes its own, zero fields falling back to the DB's.
//
// # Import
//
//   - A file that starts like a zip archive is read as an Excel workbook
//     (see Workbooks), whatever its extension. Otherwise the format comes
//     from the extension (.csv, .tsv/.tab, .json,
//     .jsonl/.ndjson); any other extension is sniffed: '[' is a JSON array,
//     '{' a stream of objects (JSON Lines), anything else delimited text.
//     Delimited text other than .tsv is split on tabs when its first line
//     has more tabs than commas, on semicolons when it has semicolons and no
//     commas, else on commas. Quoting is RFC 4180 and strict (a stray quote
//     is an error naming the line), except for tab-separated files, where a
//     quote inside a value is kept as it is.
//     A .json file that starts with '{' is read as JSON Lines, and refused
//     if it holds a single object.
//   - A file is refused, with a message naming the file, the problem and what
//     to do, when it is larger than Limits.MaxFileBytes, is empty, is not a
//     regular file, starts with a UTF-16/32 byte order mark, has bytes that
//     are not UTF-8 (the line is named), looks binary (a NUL byte, or more than
//     10% control characters, in the first 8 KB; .xls and other old Office
//     files, PDF, gzip, Parquet and SQLite files are named as such), has a row with a different
//     number of fields than the header, is JSON that is not an array of
//     objects, or is JSON Lines with a line that is not an object. A UTF-8
//     byte order mark is dropped.
//   - A file is read twice: the first pass checks it and infers the column
//     types, the second inserts the rows. The second pass runs in one
//     transaction with the table's creation and its _agentdeck_tables row,
//     so an import that fails for any reason (a bad row, a cancelled
//     context, a full disk) leaves nothing behind.
//   - Column types are inferred over every value of a column, empty values
//     ignored: INTEGER if all parse as int64, else REAL if all are decimal
//     numbers, else BOOLEAN if all are true/false (any case), else DATE if
//     all are ISO 8601 dates or date-times (YYYY-MM-DD, optionally followed
//     by T or a space, HH:MM[:SS[.fff]] and an optional Z or ±HH:MM), else
//     TEXT. Two exceptions keep identifiers intact: a number written with a
//     leading zero ("02134") and an integer too large for int64 are text.
//     Empty and blank values are stored as NULL. BOOLEAN is stored as 1/0
//     and read back as true/false; DATE is stored as the original ISO text
//     (declared TEXT in SQLite, because the driver would otherwise turn a
//     DATE column into time.Time values).
//   - JSON values become cells as written: numbers and true/false take part
//     in inference like any text, null is NULL, nested objects and arrays
//     are kept as compact JSON text.
//   - Table names come from the file name, column names from the header (or
//     JSON keys, in order of first appearance): lowercased, every run of
//     characters other than letters and digits becomes one '_' (none at the
//     ends), at most 60 characters; a table name starting with a digit or
//     "sqlite_" gets a "t_" prefix and a column name starting with a digit
//     a "col_" prefix; empty names become "data" or col_N (N the position);
//     duplicates get _2, _3, ... Identifiers are always quoted in the SQL
//     this package writes; list_data shows them quoted where the model must
//     quote them (SQL keywords such as "order").
//
// # Workbooks
//
// An Excel workbook (.xlsx, .xlsm) is read with excelize, a sheet at a time
// through its streaming row iterator, so a big sheet is never held whole.
//
//   - Each worksheet with data becomes a table named after the file and the
//     sheet ("Sales 2024.xlsx", sheet "EU" gives sales_2024_eu), by the
//     table-name rules above; Table.Source is `Sales 2024.xlsx, sheet "EU"`.
//     Hidden sheets are attached too; chart sheets and empty sheets are
//     skipped, and a workbook whose sheets are all empty is refused.
//     AttachAll returns the tables in sheet order; Attach returns the first.
//   - The header is the first row with a value in it (rows above it are
//     blank); one row. Rows whose cells are all blank are skipped, wherever
//     they are. Column names follow the header by the column-name rules
//     above, with two spreadsheet rules first: the cells a merged header
//     cell covers take its value followed by " (2)", " (3)", ... (a "Q1"
//     merged over two columns gives q1 and q1_2), and an empty header cell
//     over a column with data is named after the column's position in the
//     sheet (an empty C1 gives col_3). A column with neither a header nor
//     any data (a gap, say column A when the table starts in B) is left out.
//     Merged cells below the header keep their value in their first cell
//     only. A cell to the right of the header with data makes a column too.
//   - Cells are read as text and take part in type inference exactly like
//     CSV values. A number is the number stored (to Excel's 15 significant
//     digits), whatever its display format ("$1,234.50" is 1234.5, "12.5%"
//     is 0.125); a cell whose format is a date or a date and time reads as
//     ISO 8601 (2024-01-15, 2024-01-15 10:30:00, to the nearest second, in
//     the workbook's 1900 or 1904 date system), so a column of them is DATE,
//     whatever the format shows (15/01/24, Jan-24); a time of day reads as
//     10:30:00 (TEXT) and a duration ([h]:mm) as 27:30:00. Whether a format
//     is a date is decided by its code: Excel's built-in date and time formats (14-22,
//     27-36, 45-47, 50-58), and custom codes that have y, d, or m (month)
//     outside quotes, escapes and brackets; h, s and AM/PM are times.
//     TRUE/FALSE cells are booleans. A formula reads as the value Excel
//     saved with it (its cached value); a formula saved without one (by a
//     program that does not calculate) is NULL. Excel's error values
//     (#N/A, #DIV/0!, #VALUE!, #REF!, #NAME?, #NUM!, #NULL!, #SPILL!,
//     #CALC!, #GETTING_DATA) are NULL, typed or computed.
//   - Limits: the file is held to Limits.MaxFileBytes like any other, and
//     its unzipped parts together to 20 times that (a zip bomb is refused
//     before anything is unzipped); a table has at most 2,000 columns (a
//     cell beyond is an error naming its sheet and cell: Sheet "Sales",
//     cell BXY7) and a sheet at most Excel's 1,048,576 rows.
//   - Refused, with what to do: a workbook encrypted with a password (an
//     OLE file holding an EncryptedPackage stream), an old .xls (any other
//     OLE file), a binary workbook (.xlsb), an OpenDocument file (.ods), a
//     zip archive that is not a workbook, and a damaged or cut-short file.
//     A sheet that cannot be read is named with its row.
//   - Every sheet is surveyed (checked and inferred) before anything is
//     written; then every table is made in one transaction, so a workbook
//     that fails on any sheet, or is cancelled, leaves nothing behind.
//
// # Queries
//
// query_data runs read-only SQL, enforced three times over:
//
//  1. A lexical guard (checkReadOnly) accepts exactly one statement that
//     starts with SELECT or WITH, with an optional trailing ';' (after which
//     only comments and more ';' may follow). It skips
//     comments, string literals and quoted identifiers the way SQLite's
//     tokenizer does, and rejects the words ATTACH, DETACH, PRAGMA, INSERT,
//     UPDATE, DELETE, CREATE, DROP, ALTER, REPLACE and VACUUM anywhere else,
//     except replace followed by '(' (the string function), which cannot
//     write once INSERT is refused.
//  2. The query pool is opened with mode=ro and query_only(1).
//  3. An SQLite authorizer on the query pool allows only reading tables,
//     calling functions (not load_extension), recursive CTEs and a short
//     list of read-only pragma table functions (pragma_table_info, ...).
//
// Each query runs under a context deadline (Limits.QueryTimeout); SQLite is
// interrupted when it passes, and the model is told to add a LIMIT or
// aggregate. At most Limits.MaxRows rows are returned, with Truncated set;
// TotalRows is counted by stepping on through at most 100,000 rows within
// the same deadline, else -1. A single string or blob is capped at 32 MiB
// on the query pool. SQLite's own error text goes back to the model, which
// needs it to fix its SQL, prefixed with "SQLite error:".
//
// # Datasets
//
// Datasets returns a chart.Datasets (with Names) over the live DB: every
// result query_data saved under a "name" (its last result, at most
// Limits.MaxDatasetRows rows), then every attached table by its name (its
// first MaxDatasetRows rows). A saved name shadows a table of the same name.
// Rows hold int64, float64 (NaN and ±Inf become null), string, bool and nil
// (a blob that is not UTF-8 becomes a "<blob, N bytes>" string), keyed by
// column name; a repeated name gets _2, _3, ...
//
// # Errors
//
// Every error returned is an *apperr.Error: Invalid for a bad file or bad
// SQL (the message is meant for the model or the user), NotFound for a
// missing file, Cancelled when ctx ends, Unavailable for disk or database
// trouble.
package data
