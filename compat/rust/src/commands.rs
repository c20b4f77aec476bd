//! The consumer commands of compat/PROTOCOL.md on paimon-rust: `read` through the table's own
//! scan and read, `search` through `Table::new_full_text_search_builder().execute_read()`, the
//! primary-key full-text read path (PrimaryKeyFullTextScan and PrimaryKeyFullTextRead over the
//! bucket archives). Everything returned is paimon-rust's own answer; this module only renders
//! it.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use futures::TryStreamExt;
use paimon::catalog::Identifier;
use paimon::io::FileIO;
use paimon::table::SchemaManager;
use paimon::Table;
use serde_json::{json, Map, Value};

use crate::values::{compare_rows, row_object};

/// The column paimon-rust's materialized full-text read appends with each row's score.
const SCORE_COLUMN: &str = "__paimon_search_score";

/// The table option naming the indexed column(s).
const INDEX_COLUMNS_OPTION: &str = "pk-full-text.index.columns";

/// A failed command: its kind (the `<Type>` of the protocol's `<Type>: <message>`) and message.
#[derive(Debug)]
pub struct CommandError {
    pub kind: String,
    pub message: String,
}

impl CommandError {
    pub fn invalid(message: impl Into<String>) -> Self {
        CommandError {
            kind: "InvalidArgument".into(),
            message: message.into(),
        }
    }
}

impl From<paimon::Error> for CommandError {
    fn from(e: paimon::Error) -> Self {
        // The variant's name (DataInvalid, Unsupported, IoUnexpected, ...) is the type.
        let debug = format!("{e:?}");
        let kind: String = debug
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        CommandError {
            kind: format!("paimon::Error::{kind}"),
            message: e.to_string(),
        }
    }
}

pub type CommandResult = Result<Value, CommandError>;

pub fn string_arg<'a>(
    args: &'a Map<String, Value>,
    name: &str,
) -> Result<Option<&'a str>, CommandError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(CommandError::invalid(format!(
            "args.{name} must be a string, not {other}"
        ))),
    }
}

/// Opens the table whose directory is args.path at its latest schema, without a catalog (the
/// corpus tables are not laid out as a warehouse).
pub async fn open(args: &Map<String, Value>) -> Result<Table, CommandError> {
    let path = string_arg(args, "path")?
        .filter(|p| !p.is_empty())
        .ok_or_else(|| CommandError::invalid("args.path is required"))?;
    if !std::path::Path::new(path).is_dir() {
        return Err(CommandError::invalid(format!(
            "no table directory at {path}"
        )));
    }
    let location = path.trim_end_matches('/').to_string();
    let file_io = FileIO::from_path(&location)?.build()?;
    let schema = SchemaManager::new(file_io.clone(), location.clone())
        .latest()
        .await?
        .ok_or_else(|| CommandError::invalid(format!("no schema found at {location}")))?;
    Ok(Table::new(
        file_io,
        Identifier::new("default", "table"),
        location,
        (*schema).clone(),
        None,
    ))
}

fn field_names(table: &Table) -> Vec<String> {
    table
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect()
}

/// Every row of batches as JSON objects of fields.
fn rows_of(
    batches: &[RecordBatch],
    fields: &[String],
) -> Result<Vec<Map<String, Value>>, CommandError> {
    let mut rows = Vec::new();
    for batch in batches {
        for i in 0..batch.num_rows() {
            rows.push(row_object(batch, i, fields).map_err(CommandError::invalid)?);
        }
    }
    Ok(rows)
}

/// read {path}: every visible row of the latest snapshot, sorted by primary key.
pub async fn read(args: &Map<String, Value>) -> CommandResult {
    let table = open(args).await?;
    let fields = field_names(&table);
    let builder = table.new_read_builder();
    let plan = builder.new_scan().plan().await?;
    let batches: Vec<RecordBatch> = builder
        .new_read()?
        .to_arrow(plan.splits())?
        .try_collect()
        .await?;
    let mut rows = rows_of(&batches, &fields)?;
    let keys = sort_keys(&table);
    rows.sort_by(|a, b| compare_rows(a, b, &keys));
    Ok(json!({ "rows": rows }))
}

/// The fields rows are ordered by: the primary key, or every field of a table without one.
fn sort_keys(table: &Table) -> Vec<String> {
    let pks = table.schema().primary_keys();
    if pks.is_empty() {
        field_names(table)
    } else {
        pks.to_vec()
    }
}

/// The engine query the protocol's query stands for: a JSON query as it is, plain words as a
/// match query.
fn engine_query(q: &str) -> Result<String, CommandError> {
    let trimmed = q.trim();
    if trimmed.is_empty() {
        return Err(CommandError::invalid("args.query must not be blank"));
    }
    if trimmed.starts_with('{') {
        return Ok(q.to_string());
    }
    Ok(json!({ "match": { "query": q } }).to_string())
}

/// search {path, query, column?, limit?, ranked?}: paimon-rust's primary-key full-text read of
/// the latest snapshot. Results by score descending, ties by primary key; with ranked in
/// paimon-rust's own order (score descending, ties by partition bytes, bucket, data file name,
/// row position: pk_full_text_read.rs, candidate_cmp), without positions, which its public API
/// does not return.
pub async fn search(args: &Map<String, Value>) -> CommandResult {
    let table = open(args).await?;
    let column = match string_arg(args, "column")?.filter(|c| !c.is_empty()) {
        Some(c) => c.to_string(),
        None => {
            let configured = table
                .schema()
                .options()
                .get(INDEX_COLUMNS_OPTION)
                .cloned()
                .unwrap_or_default();
            let cols: Vec<&str> = configured
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            match cols.as_slice() {
                [one] => one.to_string(),
                _ => {
                    return Err(CommandError::invalid(format!(
                        "args.column is required: the table indexes {} columns",
                        cols.len()
                    )))
                }
            }
        }
    };
    let query = engine_query(string_arg(args, "query")?.unwrap_or(""))?;
    let limit = match args.get("limit") {
        None | Some(Value::Null) => 10,
        Some(v) => v.as_u64().filter(|l| *l > 0).ok_or_else(|| {
            CommandError::invalid(format!("args.limit must be a positive integer, not {v}"))
        })?,
    };
    let limit =
        usize::try_from(limit).map_err(|_| CommandError::invalid("args.limit is too large"))?;
    let ranked = match args.get("ranked") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(CommandError::invalid(format!(
                "args.ranked must be a boolean, not {other}"
            )))
        }
    };

    let mut out = json!({ "column": column, "query": query, "snapshotId": 0, "results": [] });
    // execute_read plans the latest snapshot and does not say which it was: the table is not
    // written while a case runs, so the latest snapshot before the search is the one searched.
    let Some(snapshot) = table.snapshot_manager().get_latest_snapshot().await? else {
        return Ok(out);
    };
    out["snapshotId"] = snapshot.id().into();

    let batches: Vec<RecordBatch> = table
        .new_full_text_search_builder()
        .with_text_column(&column)
        .with_query_text(&query)
        .with_limit(limit)
        .execute_read()
        .await?
        .try_collect()
        .await?;

    let keys = table.schema().primary_keys().to_vec();
    let mut results = Vec::new();
    for batch in &batches {
        let scores = batch.column_by_name(SCORE_COLUMN).ok_or_else(|| {
            CommandError::invalid(format!("the search returned no {SCORE_COLUMN} column"))
        })?;
        for i in 0..batch.num_rows() {
            let key = row_object(batch, i, &keys).map_err(CommandError::invalid)?;
            let text = row_object(batch, i, std::slice::from_ref(&column))
                .map_err(CommandError::invalid)?;
            let score = score(scores.as_ref(), i)?;
            results.push((
                key,
                text.get(&column).cloned().unwrap_or(Value::Null),
                score,
            ));
        }
    }
    if !ranked {
        // Scores compared as the floats the engine computes, as the Java runner does.
        results.sort_by(|a, b| {
            (b.2 as f32)
                .total_cmp(&(a.2 as f32))
                .then_with(|| compare_rows(&a.0, &b.0, &keys))
        });
    } else if let Some(i) = results
        .windows(2)
        .position(|w| (w[0].2 as f32) < (w[1].2 as f32))
    {
        return Err(CommandError::invalid(format!(
            "paimon-rust's search returned hit {} with score {} after one with score {}",
            i + 1,
            results[i + 1].2,
            results[i].2
        )));
    }
    out["results"] = results
        .into_iter()
        .map(|(key, text, score)| json!({ "key": key, "text": text, "score": score }))
        .collect();
    Ok(out)
}

fn score(column: &dyn Array, row: usize) -> Result<f64, CommandError> {
    if column.is_null(row) {
        return Err(CommandError::invalid(format!(
            "row {row} of the search has no score"
        )));
    }
    match column.data_type() {
        DataType::Float32 => {
            let s = column.as_primitive::<Float32Type>().value(row);
            // The float's shortest decimal, so the JSON carries the engine's value, not its
            // widening to a double.
            s.to_string()
                .parse::<f64>()
                .map_err(|e| CommandError::invalid(e.to_string()))
        }
        DataType::Float64 => Ok(column.as_primitive::<Float64Type>().value(row)),
        other => Err(CommandError::invalid(format!(
            "the search's scores are of type {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_json_as_is_words_as_match() {
        assert_eq!(
            engine_query(r#"{"match":{"query":"a"}}"#).unwrap(),
            r#"{"match":{"query":"a"}}"#
        );
        assert_eq!(
            engine_query("apache paimon").unwrap(),
            r#"{"match":{"query":"apache paimon"}}"#
        );
        assert!(engine_query("  ").is_err());
    }
}
