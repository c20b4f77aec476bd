//! Consumer and writer runner of the pkft conformance suite on paimon-rust, Apache Paimon's Rust
//! implementation (crate `paimon` with features `fulltext` and `storage-fs`).
//!
//! paimon-rust reads primary-key tables and searches their full-text archives itself
//! (`Table::new_full_text_search_builder().execute_read()`: PrimaryKeyFullTextScan and
//! PrimaryKeyFullTextRead over the bucket archives, through paimon-ftindex-core and tantivy
//! 0.26.1). Everything this runner reports is paimon-rust's own decoding; the conformance suite
//! compares it with Java's answers for the same tables.
//!
//! Speaks the JSON-lines protocol of compat/PROTOCOL.md: one request per line on stdin
//! `{"id", "cmd", "args"}`; one response per line on stdout `{"id", "ok": true, "result"}` or
//! `{"id", "ok": false, "error": "<Type>: <message>"}`. A bad request, an error of paimon-rust or
//! a panic in it is an error response, never an exit; logs go to stderr only. The runner exits
//! when stdin ends.
//!
//! Commands (what compat/rust/rust.supports declares):
//!   ping    {"runner": "rust", "version", "ftindexVersion", "tantivyVersion", "commands"}
//!   read    {path} -> {"rows"}: every visible row of the latest snapshot, by primary key
//!   search  {path, query, column?, limit?, ranked?} -> {"snapshotId", "column", "query",
//!           "results": [{"key", "text", "score"}]}
//!   create-table {warehouse, database, table, fields, primaryKeys, partitionKeys?, options?}
//!           -> {"path"}: the table through paimon-rust's filesystem catalog
//!   write   {path, rows, stringBytes?, dynamicOptions?} -> {"rows"}: one batch through
//!           paimon-rust's TableWrite (level-0 files; rows of every row kind) and one commit
//!
//! list-index is not served: paimon-rust 0.4.0 decides which archives are current in
//! crate-private types (PkFullTextBucketState) and exposes no listing. compact and the other
//! compactor and maintainer commands are not served: paimon-rust 0.4.0 writes level-0 files
//! only (write.rs says which write arguments it refuses).
//!
//! Usage: pkft-rust-runner serve

mod commands;
mod values;
mod write;

use std::io::{self, BufRead, Write};
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use serde_json::{json, Map, Value};

use commands::{CommandError, CommandResult};

/// The version of the runner protocol this runner speaks (compat/PROTOCOL.md, "Versions").
const PROTOCOL_VERSION: &str = "1.0";

/// The commands this runner serves, as ping lists them.
const COMMANDS: &[&str] = &["ping", "read", "search", "create-table", "write"];

fn ping() -> CommandResult {
    Ok(json!({
        "runner": "rust",
        "protocolVersion": PROTOCOL_VERSION,
        "version": env!("PKFT_PAIMON_VERSION"),
        "ftindexVersion": env!("PKFT_FTINDEX_VERSION"),
        "tantivyVersion": env!("PKFT_TANTIVY_VERSION"),
        "commands": COMMANDS,
    }))
}

async fn dispatch(cmd: &str, args: &Map<String, Value>) -> CommandResult {
    match cmd {
        "ping" => ping(),
        "read" => commands::read(args).await,
        "search" => commands::search(args).await,
        "create-table" => write::create_table(args).await,
        "write" => write::write(args).await,
        _ => Err(CommandError {
            kind: "UnknownCommand".into(),
            message: format!("unknown command: {cmd}"),
        }),
    }
}

/// Answers one request line. Never panics: a panic inside paimon-rust becomes an error.
fn handle(rt: &tokio::runtime::Runtime, line: &str) -> Value {
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return json!({ "id": Value::Null, "ok": false, "error": format!("InvalidRequest: {e}") })
        }
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let Some(cmd) = request.get("cmd").and_then(Value::as_str) else {
        return json!({ "id": id, "ok": false, "error": "InvalidRequest: the request has no cmd" });
    };
    let args = match request.get("args") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return json!({ "id": id, "ok": false, "error": format!("InvalidRequest: args must be an object, not {other}") })
        }
    };
    let outcome = rt.block_on(AssertUnwindSafe(dispatch(cmd, &args)).catch_unwind());
    match outcome {
        Ok(Ok(result)) => json!({ "id": id, "ok": true, "result": result }),
        Ok(Err(e)) => {
            json!({ "id": id, "ok": false, "error": format!("{}: {}", e.kind, e.message) })
        }
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".into());
            json!({ "id": id, "ok": false, "error": format!("Panic: {cmd}: {msg}") })
        }
    }
}

fn serve() -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    eprintln!(
        "pkft-rust-runner: serving on paimon {}",
        env!("PKFT_PAIMON_VERSION")
    );
    let stdout = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = handle(&rt, &line);
        let mut out = stdout.lock();
        writeln!(out, "{response}")?;
        out.flush()?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 || args[1] != "serve" {
        eprintln!(
            "usage: {} serve",
            args.first().map_or("pkft-rust-runner", String::as_str)
        );
        std::process::exit(2);
    }
    // A panic is answered as an error (handle); the default hook prints it to stderr.
    if let Err(e) = serve() {
        eprintln!("pkft-rust-runner: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        handle(&rt, line)
    }

    #[test]
    fn ping_lists_the_commands() {
        let v = answer(r#"{"id":1,"cmd":"ping"}"#);
        assert_eq!(v["id"], 1);
        assert_eq!(v["ok"], true);
        assert_eq!(v["result"]["runner"], "rust");
        assert_eq!(v["result"]["protocolVersion"], "1.0");
        assert_eq!(
            v["result"]["commands"],
            json!(["ping", "read", "search", "create-table", "write"])
        );
        assert_eq!(v["result"]["tantivyVersion"], "0.26.1");
    }

    #[test]
    fn bad_requests_are_error_responses() {
        for (line, id, error) in [
            ("not json", Value::Null, "InvalidRequest: "),
            (
                r#"{"id":2}"#,
                json!(2),
                "InvalidRequest: the request has no cmd",
            ),
            (
                r#"{"id":3,"cmd":"read","args":[1]}"#,
                json!(3),
                "InvalidRequest: args must be an object",
            ),
            (
                r#"{"id":4,"cmd":"list-index","args":{}}"#,
                json!(4),
                "UnknownCommand: unknown command: list-index",
            ),
            (
                r#"{"id":5,"cmd":"read","args":{}}"#,
                json!(5),
                "InvalidArgument: args.path is required",
            ),
            (
                r#"{"id":6,"cmd":"search","args":{"path":"/nonexistent","query":"x"}}"#,
                json!(6),
                "InvalidArgument: no table directory",
            ),
            (
                r#"{"id":7,"cmd":"write","args":{"path":"/nonexistent","rows":[],"compact":"full"}}"#,
                json!(7),
                "Unsupported: args.compact: paimon-rust 0.4.0",
            ),
            (
                r#"{"id":8,"cmd":"write","args":{"path":"/nonexistent","rows":[{}],"indexNewRows":true}}"#,
                json!(8),
                "Unsupported: args.indexNewRows: pkft's own",
            ),
            (
                r#"{"id":9,"cmd":"create-table","args":{"warehouse":"/tmp","database":"d","table":"t","fields":[{"name":"k","type":"NOT A TYPE"}],"primaryKeys":["k"]}}"#,
                json!(9),
                "InvalidArgument: field k: paimon-rust does not parse type",
            ),
        ] {
            let v = answer(line);
            assert_eq!(v["id"], id, "{line}");
            assert_eq!(v["ok"], false, "{line}");
            assert!(
                v["error"].as_str().unwrap().starts_with(error),
                "{line}: {v}"
            );
        }
    }
}
