//! The writer commands of compat/PROTOCOL.md on paimon-rust 0.4.0's public write API:
//! `create-table` through its filesystem catalog (`CatalogFactory::create`,
//! `Catalog::create_database`, `Catalog::create_table`), `write` through
//! `Table::new_write_builder()` → `TableWrite::write_arrow_batch` → `TableWrite::prepare_commit`
//! → `TableCommit::commit`: one batch and one commit per request. paimon-rust decides everything
//! about the files (buckets, sequence numbers, deletion vectors, level 0); this module only turns
//! the protocol's JSON rows into the Arrow batch the writer takes.
//!
//! paimon-rust 0.4.0 writes level-0 files only: it compacts nothing at commit and builds no
//! full-text archive, so the write command's compaction arguments (`compact`, `compactBucket`)
//! and pkft's own `indexNewRows` are refused by name, as are the Java runner's synchronization
//! files (`readyFile`, `awaitFile`).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowDataType, Field, Schema as ArrowSchema};
use paimon::catalog::Identifier;
use paimon::spec::{DataType, Schema};
use paimon::{CatalogFactory, CatalogOptions, Options};
use serde_json::{json, Map, Value};

use crate::commands::{open, string_arg, CommandError, CommandResult};
use crate::values::array_of;

/// The column paimon-rust's primary-key writer reads each row's kind from (Int8, RowKind's
/// value), after the table's fields (table_write.rs, validate_write_batch_schema).
const VALUE_KIND_COLUMN: &str = "_VALUE_KIND";

/// The write arguments of the protocol this runner refuses, and why.
const REFUSED_WRITE_ARGS: &[(&str, &str)] = &[
    ("compact", "paimon-rust 0.4.0's TableWrite writes level-0 files only and compacts nothing at commit (paimon/src/table/table_write.rs)"),
    ("compactBucket", "paimon-rust 0.4.0's TableWrite writes level-0 files only and compacts nothing at commit (paimon/src/table/table_write.rs)"),
    ("indexNewRows", "pkft's own write option (WithIndexNewRows); paimon-rust 0.4.0 builds no full-text archive when it writes"),
    ("readyFile", "the Java runner's synchronization of concurrent writers, not served by this runner"),
    ("awaitFile", "the Java runner's synchronization of concurrent writers, not served by this runner"),
];

fn unsupported(message: impl Into<String>) -> CommandError {
    CommandError {
        kind: "Unsupported".into(),
        message: message.into(),
    }
}

fn strings_arg(args: &Map<String, Value>, name: &str) -> Result<Vec<String>, CommandError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .ok_or_else(|| {
                        CommandError::invalid(format!(
                            "args.{name} must hold non-empty strings, not {v}"
                        ))
                    })
            })
            .collect(),
        Some(other) => Err(CommandError::invalid(format!(
            "args.{name} must be an array of strings, not {other}"
        ))),
    }
}

fn required_string<'a>(args: &'a Map<String, Value>, name: &str) -> Result<&'a str, CommandError> {
    string_arg(args, name)?
        .filter(|s| !s.is_empty())
        .ok_or_else(|| CommandError::invalid(format!("args.{name} is required")))
}

/// create-table {warehouse, database, table, fields, primaryKeys, partitionKeys?, options?}:
/// the table through paimon-rust's filesystem catalog; its directory is the result's path.
pub async fn create_table(args: &Map<String, Value>) -> CommandResult {
    let warehouse = required_string(args, "warehouse")?;
    let database = required_string(args, "database")?;
    let name = required_string(args, "table")?;
    let fields = match args.get("fields") {
        Some(Value::Array(fields)) if !fields.is_empty() => fields,
        _ => {
            return Err(CommandError::invalid(
                "args.fields must be a non-empty array",
            ))
        }
    };
    let mut builder = Schema::builder();
    for f in fields {
        let field_name = f.get("name").and_then(Value::as_str).unwrap_or_default();
        let type_text = f.get("type").and_then(Value::as_str).unwrap_or_default();
        if field_name.is_empty() || type_text.is_empty() {
            return Err(CommandError::invalid(format!(
                "each field needs a name and a type: {f}"
            )));
        }
        // paimon-rust's own parser of Paimon's type strings (DataType's Deserialize).
        let data_type: DataType = serde_json::from_value(Value::String(type_text.to_string()))
            .map_err(|e| {
                CommandError::invalid(format!(
                    "field {field_name}: paimon-rust does not parse type {type_text:?}: {e}"
                ))
            })?;
        builder = builder.column(field_name, data_type);
    }
    let primary_keys = strings_arg(args, "primaryKeys")?;
    if primary_keys.is_empty() {
        return Err(CommandError::invalid(
            "args.primaryKeys must name the primary key",
        ));
    }
    builder = builder
        .primary_key(primary_keys)
        .partition_keys(strings_arg(args, "partitionKeys")?);
    match args.get("options") {
        None | Some(Value::Null) => {}
        Some(Value::Object(options)) => {
            for (k, v) in options {
                let v = v.as_str().ok_or_else(|| {
                    CommandError::invalid(format!("option {k} must be a string, not {v}"))
                })?;
                builder = builder.option(k.clone(), v);
            }
        }
        Some(other) => {
            return Err(CommandError::invalid(format!(
                "args.options must be an object, not {other}"
            )))
        }
    }
    let schema = builder.build()?;

    let mut options = Options::new();
    options.set(CatalogOptions::WAREHOUSE, warehouse);
    let catalog = CatalogFactory::create(options).await?;
    catalog
        .create_database(database, true, HashMap::new())
        .await?;
    let identifier = Identifier::new(database, name);
    catalog.create_table(&identifier, schema, false).await?;
    let table = catalog.get_table(&identifier).await?;
    Ok(json!({ "path": table.location().trim_start_matches("file://") }))
}

/// The protocol's row kinds as paimon's RowKind values (paimon/src/spec/row_kind.rs).
fn row_kind(row: &Map<String, Value>) -> Result<i8, CommandError> {
    match row.get("_rowKind") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(k)) => match k.as_str() {
            "+I" => Ok(0),
            "-U" => Ok(1),
            "+U" => Ok(2),
            "-D" => Ok(3),
            _ => Err(CommandError::invalid(format!(
                "_rowKind must be +I, -U, +U or -D, not {k}"
            ))),
        },
        Some(other) => Err(CommandError::invalid(format!(
            "_rowKind must be a string, not {other}"
        ))),
    }
}

/// write {path, rows, stringBytes?, dynamicOptions?}: one batch written by paimon-rust's
/// TableWrite and one commit by its TableCommit.
pub async fn write(args: &Map<String, Value>) -> CommandResult {
    for (name, why) in REFUSED_WRITE_ARGS {
        if !matches!(args.get(*name), None | Some(Value::Null)) {
            return Err(unsupported(format!("args.{name}: {why}")));
        }
    }
    let rows: Vec<&Map<String, Value>> = match args.get("rows") {
        Some(Value::Array(rows)) => rows
            .iter()
            .map(|r| {
                r.as_object()
                    .ok_or_else(|| CommandError::invalid(format!("a row must be an object: {r}")))
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(CommandError::invalid("args.rows must be an array")),
    };
    let mut table = open(args).await?;
    match args.get("dynamicOptions") {
        None | Some(Value::Null) => {}
        Some(Value::Object(dynamic)) => {
            let mut options = table.schema().options().clone();
            for (k, v) in dynamic {
                match v {
                    Value::Null => {
                        options.remove(k);
                    }
                    Value::String(s) => {
                        options.insert(k.clone(), s.clone());
                    }
                    other => {
                        return Err(CommandError::invalid(format!(
                            "dynamic option {k} must be a string or null, not {other}"
                        )))
                    }
                }
            }
            let schema = table.schema().copy_with_replaced_options(options);
            table = paimon::Table::new(
                table.file_io().clone(),
                table.identifier().clone(),
                table.location().to_string(),
                schema,
                None,
            );
        }
        Some(other) => {
            return Err(CommandError::invalid(format!(
                "args.dynamicOptions must be an object, not {other}"
            )))
        }
    }

    let fields = table.schema().fields().to_vec();
    let string_bytes = strings_arg(args, "stringBytes")?;
    for name in &string_bytes {
        let Some(f) = fields.iter().find(|f| f.name() == name) else {
            return Err(CommandError::invalid(format!(
                "stringBytes names {name}, which is not a field of the table"
            )));
        };
        if !matches!(f.data_type(), DataType::VarChar(_) | DataType::Char(_)) {
            return Err(CommandError::invalid(format!(
                "stringBytes names {name}, which is not a string field"
            )));
        }
    }
    for row in &rows {
        if let Some(k) = row
            .keys()
            .find(|k| *k != "_rowKind" && !fields.iter().any(|f| f.name() == k.as_str()))
        {
            return Err(CommandError::invalid(format!(
                "a row has field {k}, which the table does not have"
            )));
        }
    }

    let mut arrow_fields = Vec::with_capacity(fields.len() + 1);
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(fields.len() + 1);
    for f in &fields {
        let arrow_type = paimon::arrow::paimon_type_to_arrow(f.data_type())?;
        let values: Vec<&Value> = rows
            .iter()
            .map(|r| r.get(f.name()).unwrap_or(&Value::Null))
            .collect();
        let array = array_of(
            &arrow_type,
            &values,
            string_bytes.iter().any(|n| n == f.name()),
        )
        .map_err(|e| CommandError::invalid(format!("field {}: {e}", f.name())))?;
        arrow_fields.push(Field::new(
            f.name(),
            arrow_type,
            f.data_type().is_nullable(),
        ));
        columns.push(array);
    }
    let kinds: Vec<i8> = rows.iter().map(|r| row_kind(r)).collect::<Result<_, _>>()?;
    if kinds.iter().any(|k| *k != 0) {
        arrow_fields.push(Field::new(VALUE_KIND_COLUMN, ArrowDataType::Int8, false));
        columns.push(Arc::new(Int8Array::from(kinds)));
    }
    let batch = RecordBatch::try_new(Arc::new(ArrowSchema::new(arrow_fields)), columns)
        .map_err(|e| CommandError::invalid(format!("the rows make no Arrow batch: {e}")))?;

    let builder = table.new_write_builder();
    let mut writer = builder.new_write()?;
    writer.write_arrow_batch(&batch).await?;
    let messages = writer.prepare_commit().await?;
    builder.new_commit().commit(messages).await?;
    Ok(json!({ "rows": rows.len() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// A table created and written through paimon-rust reads back through paimon-rust: new rows,
    /// an update and a delete, over two commits. Without deletion vectors: a batch read of a
    /// deletion-vector table skips level 0, where everything paimon-rust writes stays.
    #[test]
    fn created_written_and_read_back() {
        let dir = std::env::temp_dir().join(format!("pkft-rust-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let created = create_table(&args(json!({
                "warehouse": dir.to_str().unwrap(), "database": "db", "table": "t",
                "fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "d", "type": "DATE"},
                           {"name": "price", "type": "DECIMAL(10, 2)"}, {"name": "content", "type": "STRING"}],
                "primaryKeys": ["id"],
                "options": {"bucket": "1"},
            })))
            .await
            .unwrap();
            let path = created["path"].as_str().unwrap().to_string();
            assert!(std::path::Path::new(&path).join("schema").is_dir(), "{path}");
            let w = write(&args(json!({"path": path, "rows": [
                {"id": 1, "d": "2024-01-31", "price": "12.50", "content": "apache paimon"},
                {"id": 2, "d": null, "price": "-0.01", "content": "rust"},
                {"id": 3, "content": "gone"},
            ]})))
            .await
            .unwrap();
            assert_eq!(w["rows"], 3);
            write(&args(json!({"path": path, "rows": [
                {"_rowKind": "+U", "id": 2, "price": "1.00", "content": "updated"},
                {"_rowKind": "-D", "id": 3},
            ]})))
            .await
            .unwrap();
            let read = crate::commands::read(&args(json!({ "path": path })))
                .await
                .unwrap();
            assert_eq!(
                read["rows"],
                json!([
                    {"id": 1, "d": "2024-01-31", "price": "12.50", "content": "apache paimon"},
                    {"id": 2, "d": null, "price": "1.00", "content": "updated"},
                ])
            );
            let bad = write(&args(json!({"path": path, "rows": [{"id": 4, "nope": 1}]}))).await;
            assert!(bad.unwrap_err().message.contains("nope"));
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}
