//! The `pg` backend, as terraform's: one row per workspace in
//! `SCHEMA.states` (`id` from the sequence `public.global_states_id_seq`,
//! `name` unique, `data` the state text), and session-level advisory
//! locks: a workspace is locked by `pg_try_advisory_lock(id)` of its row,
//! and a workspace without a row by the creation lock, a number derived
//! from the schema name. Both tools take the same locks on the same
//! rows, so each waits for the other. A lock lives as long as the
//! connection that took it: a killed process's lock goes with its
//! connection.

use postgres::{Client, NoTls};

use super::lockinfo::{LockError, LockInfo};
use super::remote::RemoteStore;
use super::schema::Settings;
use super::DEFAULT_WORKSPACE;

const SEQUENCE: &str = "public.global_states_id_seq";
const DEFAULT_SCHEMA: &str = "terraform_remote_state";
const TABLE: &str = "states";
const INDEX: &str = "states_by_name";

/// lib/pq's `QuoteIdentifier`: double quotes, inner ones doubled,
/// anything from a NUL on dropped.
fn quote_identifier(name: &str) -> String {
    let name = name.split('\0').next().unwrap_or_default();
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The workspace-creation lock: the 32-bit FNV-1 hash of the schema name,
/// negated, so it never collides with a row id.
fn creation_lock_id(schema: &str) -> i64 {
    let mut hash: u32 = 0x811c_9dc5;
    for b in schema.as_bytes() {
        hash = hash.wrapping_mul(0x0100_0193);
        hash ^= u32::from(*b);
    }
    -i64::from(hash)
}

pub struct PgStore {
    client: Client,
    conn_str: String,
    schema: String,
    /// The advisory lock held, per workspace.
    held: Vec<(String, i64)>,
}

fn pg_error(e: postgres::Error) -> String {
    // The server's own message when there is one ("relation ... does not
    // exist"), else the client's.
    match e.as_db_error() {
        Some(db) => format!("pq: {}", db.message()),
        None => e.to_string(),
    }
}

impl PgStore {
    pub fn configure(settings: &Settings<'_>) -> Result<PgStore, String> {
        let conn_str = settings
            .string("conn_str", &["PG_CONN_STR"])
            .ok_or_else(|| "conn_str: a PostgreSQL connection string is required".to_string())?;
        let schema = settings
            .string("schema_name", &["PG_SCHEMA_NAME"])
            .unwrap_or_else(|| DEFAULT_SCHEMA.to_string());
        let skip_schema = settings
            .bool("skip_schema_creation", &["PG_SKIP_SCHEMA_CREATION"])?
            .unwrap_or(false);
        let skip_table = settings
            .bool("skip_table_creation", &["PG_SKIP_TABLE_CREATION"])?
            .unwrap_or(false);
        let skip_index = settings
            .bool("skip_index_creation", &["PG_SKIP_INDEX_CREATION"])?
            .unwrap_or(false);
        let config: postgres::Config = conn_str
            .parse()
            .map_err(|e: postgres::Error| format!("invalid conn_str: {e}"))?;
        if config.get_ssl_mode() != postgres::config::SslMode::Disable {
            return Err(format!(
                "{} connects to PostgreSQL without TLS only, and this connection string does not say sslmode=disable (lib/pq, which terraform uses, requires TLS unless told otherwise). Add sslmode=disable to conn_str to connect without TLS.",
                terrace_syntax::PRODUCT
            ));
        }
        let mut client = config.connect(NoTls).map_err(pg_error)?;
        let quoted_schema = quote_identifier(&schema);
        if !skip_schema {
            let row = client
                .query_one(
                    "select count(1) from information_schema.schemata where schema_name = $1",
                    &[&schema],
                )
                .map_err(pg_error)?;
            let count: i64 = row.get(0);
            if count < 1 {
                client
                    .batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {quoted_schema}"))
                    .map_err(pg_error)?;
            }
        }
        if !skip_table {
            client
                .batch_execute(&format!(
                    "CREATE SEQUENCE IF NOT EXISTS {SEQUENCE} AS bigint"
                ))
                .map_err(pg_error)?;
            client
                .batch_execute(&format!(
                    "CREATE TABLE IF NOT EXISTS {quoted_schema}.{table} (\n\t\t\tid bigint NOT NULL DEFAULT nextval('{SEQUENCE}') PRIMARY KEY,\n\t\t\tname text UNIQUE,\n\t\t\tdata text\n\t\t\t)",
                    table = quote_identifier(TABLE)
                ))
                .map_err(pg_error)?;
        }
        if !skip_index {
            client
                .batch_execute(&format!(
                    "CREATE UNIQUE INDEX IF NOT EXISTS {} ON {quoted_schema}.{} (name)",
                    quote_identifier(INDEX),
                    quote_identifier(TABLE)
                ))
                .map_err(pg_error)?;
        }
        Ok(PgStore {
            client,
            conn_str,
            schema,
            held: Vec::new(),
        })
    }

    fn table(&self) -> String {
        format!(
            "{}.{}",
            quote_identifier(&self.schema),
            quote_identifier(TABLE)
        )
    }

    fn advisory_unlock(&mut self, id: i64) -> Result<(), String> {
        self.client
            .query_one("SELECT pg_advisory_unlock($1)", &[&id])
            .map(|_| ())
            .map_err(pg_error)
    }
}

impl RemoteStore for PgStore {
    fn type_name(&self) -> &'static str {
        "pg"
    }

    fn workspaces(&mut self) -> Result<Vec<String>, String> {
        let rows = self
            .client
            .query(
                &format!(
                    "SELECT name FROM {} WHERE name != 'default' ORDER BY name",
                    self.table()
                ),
                &[],
            )
            .map_err(pg_error)?;
        let mut out = vec![DEFAULT_WORKSPACE.to_string()];
        for row in rows {
            let name: Option<String> = row.get(0);
            out.extend(name);
        }
        Ok(out)
    }

    fn get(&mut self, workspace: &str) -> Result<Option<Vec<u8>>, String> {
        let row = self
            .client
            .query_opt(
                &format!("SELECT data FROM {} WHERE name = $1", self.table()),
                &[&workspace],
            )
            .map_err(pg_error)?;
        Ok(row.and_then(|r| r.get::<_, Option<String>>(0).map(String::into_bytes)))
    }

    fn put(&mut self, workspace: &str, bytes: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(bytes).into_owned();
        self.client
            .execute(
                &format!(
                    "INSERT INTO {table} (name, data) VALUES ($1, $2)\n\t\tON CONFLICT (name) DO UPDATE\n\t\tSET data = $2 WHERE {t}.name = $1",
                    table = self.table(),
                    t = quote_identifier(TABLE)
                ),
                &[&workspace, &text],
            )
            .map(|_| ())
            .map_err(pg_error)
    }

    fn delete(&mut self, workspace: &str) -> Result<(), String> {
        self.client
            .execute(
                &format!("DELETE FROM {} WHERE name = $1", self.table()),
                &[&workspace],
            )
            .map(|_| ())
            .map_err(pg_error)
    }

    fn lock(&mut self, workspace: &str, info: &mut LockInfo) -> Result<(), LockError> {
        let creation = creation_lock_id(&self.schema);
        let t = quote_identifier(TABLE);
        let failed = |message: String, info: &LockInfo| LockError {
            message,
            info: Some(Box::new(info.clone())),
        };
        let row = self
            .client
            .query_opt(
                &format!(
                    "SELECT {t}.id, pg_try_advisory_lock({t}.id), pg_try_advisory_lock($1) FROM {} WHERE {t}.name = $2",
                    self.table()
                ),
                &[&creation, &workspace],
            )
            .map_err(|e| failed(pg_error(e), info))?;
        let held = match row {
            None => {
                let row = self
                    .client
                    .query_one("SELECT pg_try_advisory_lock($1)", &[&creation])
                    .map_err(|e| failed(pg_error(e), info))?;
                let locked: bool = row.get(0);
                if !locked {
                    return Err(failed(
                        format!("Already locked for workspace creation: {workspace}"),
                        info,
                    ));
                }
                creation
            }
            Some(row) => {
                let id: i64 = row.get(0);
                let locked: bool = row.get(1);
                let locked_for_create: bool = row.get(2);
                if !locked {
                    if locked_for_create {
                        let _ = self.advisory_unlock(creation);
                    }
                    return Err(failed(
                        format!("Workspace is already locked: {workspace}"),
                        info,
                    ));
                }
                if !locked_for_create {
                    let _ = self.advisory_unlock(id);
                    return Err(failed(
                        format!(
                            "Cannot lock workspace; already locked for workspace creation: {workspace}"
                        ),
                        info,
                    ));
                }
                let _ = self.advisory_unlock(creation);
                id
            }
        };
        info.path = held.to_string();
        self.held.retain(|(w, _)| w != workspace);
        self.held.push((workspace.to_string(), held));
        Ok(())
    }

    fn unlock(&mut self, workspace: &str, _id: &str) -> Result<(), LockError> {
        let Some(pos) = self.held.iter().position(|(w, _)| w == workspace) else {
            return Ok(());
        };
        let (_, id) = self.held.remove(pos);
        self.advisory_unlock(id).map_err(|message| LockError {
            message,
            info: None,
        })
    }

    /// An advisory lock belongs to the session that took it and ends with
    /// it: a process that died left nothing to remove, and a live one's
    /// lock is not this process's to take away. As terraform, this
    /// succeeds without touching anything.
    fn force_unlock(&mut self, _workspace: &str, _id: &str) -> Result<(), LockError> {
        Ok(())
    }

    fn location(&self, workspace: &str) -> String {
        // The connection string may hold a password: only where it points.
        let target = self
            .conn_str
            .parse::<postgres::Config>()
            .ok()
            .map(|c| {
                let hosts: Vec<String> = c
                    .get_hosts()
                    .iter()
                    .map(|h| match h {
                        postgres::config::Host::Tcp(h) => h.clone(),
                        postgres::config::Host::Unix(p) => p.display().to_string(),
                    })
                    .collect();
                let ports: Vec<String> = c.get_ports().iter().map(u16::to_string).collect();
                format!(
                    "{}:{}/{}",
                    hosts.join(","),
                    ports.join(","),
                    c.get_dbname().unwrap_or_default()
                )
            })
            .unwrap_or_default();
        format!("postgres://{target} {}.{TABLE} {workspace:?}", self.schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_as_lib_pq_quotes_them() {
        assert_eq!(quote_identifier("states"), "\"states\"");
        assert_eq!(quote_identifier("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote_identifier("a\0b"), "\"a\"");
    }

    #[test]
    fn creation_lock_is_negated_fnv1_of_the_schema() {
        // FNV-1 32 of "" is the offset basis.
        assert_eq!(creation_lock_id(""), -2166136261);
        assert!(creation_lock_id("terraform_remote_state") < 0);
    }
}
