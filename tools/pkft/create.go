package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

func createCommand() *cobra.Command {
	var schemaFile string
	cmd := &cobra.Command{
		Use:   "create TABLE_PATH --schema SCHEMA_JSON",
		Short: "Create a Paimon table from a JSON schema",
		Long: `Create a table at TABLE_PATH: write its schema/schema-0 exactly as Java's SchemaManager
does. The schema file is either pkft's form

  {"columns": [{"name": "id", "type": "INT"}, {"name": "text", "type": "STRING"}],
   "primaryKeys": ["id"], "partitionKeys": [], "options": {"bucket": "2"}, "comment": "..."}

(types in Paimon's SQL text: INT, BIGINT, STRING, VARCHAR(n), DECIMAL(p, s), DATE,
TIMESTAMP(p), ...; primary-key columns become NOT NULL) or the JSON of a Java schema file
(schema/schema-N: its fields, keys, options and comment; ids and times are assigned anew).
A directory that already holds a schema is refused, and so is every table option pkft does not
know or implement (see pkft options). Prints the table's schema as JSON: its columns, keys,
options and comment.

` + indexSupport() + `
` + mergeEngineSupport(),
		Example: `  pkft create /data/db.db/docs --schema docs.json
  pkft create /data/db.db/copy --schema /data/db.db/docs/schema/schema-0`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(schemaFile)
			if err != nil {
				return fmt.Errorf("read --schema: %w", err)
			}
			def, err := pkft.ParseTableDefinition(data)
			if err != nil {
				return fmt.Errorf("--schema %s: %w", schemaFile, err)
			}
			tbl, err := pkft.Create(cmd.Context(), args[0], def, pkft.WithOpenOptions(fsOptions(cmd.Context())...))
			if err != nil {
				return err
			}
			s, err := tbl.Schema(cmd.Context())
			if err != nil {
				return err
			}
			out := pkft.TableDefinition{PrimaryKeys: s.PrimaryKeys, PartitionKeys: s.PartitionKeys, Options: s.Options, Comment: s.Comment}
			for _, c := range s.Columns {
				out.Columns = append(out.Columns, pkft.ColumnDefinition{Name: c.Name, Type: c.Type.String()})
			}
			return writeJSON(cmd.OutOrStdout(), out)
		},
	}
	cmd.Flags().StringVar(&schemaFile, "schema", "", "the table definition, a JSON `FILE` (see above)")
	_ = cmd.MarkFlagRequired("schema")
	return cmd
}
