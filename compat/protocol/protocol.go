// Package protocol holds the JSON Schemas (draft 2020-12) of the runner protocol of
// compat/PROTOCOL.md — the envelope of a request and of a response, and the arguments and result
// of every command — and validates runner traffic against them.
//
// The schemas are the files next to this one: envelope.request.json, envelope.response.json and,
// per command, <command>.request.json (the request's args) and <command>.response.json (the
// result of an ok response). They describe what the runners and the harness exchange; the
// harness (compat/runner) validates both directions of every call of a protocol runner.
//
// The Go types of the messages, in types.go, are generated from the schemas (go generate
// ./compat/protocol runs typegen through gen.go): <Command>Request is a command's args,
// <Command>Response its result, EnvelopeRequest and EnvelopeResponse the lines themselves.
// TestTypesMatchSchemas fails when types.go and the schemas differ.
package protocol

//go:generate go run gen.go

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.json
var schemaFiles embed.FS

// The directions of a call, as validation errors name them.
const (
	Request  = "request"
	Response = "response"
)

// envelope is the name of the schemas of the request and response lines themselves.
const envelope = "envelope"

// schemaBase is the base of the schemas' $id.
const schemaBase = "https://paimon-pkft.github.io/protocol/"

// Schemas is the compiled protocol: the envelope's schemas and each command's. It is immutable
// and safe for concurrent use.
type Schemas struct {
	envelope map[string]*jsonschema.Schema
	commands map[string]map[string]*jsonschema.Schema
}

// Files lists the schema files, sorted.
func Files() ([]string, error) {
	names, err := fs.Glob(schemaFiles, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// File returns one schema file's bytes.
func File(name string) ([]byte, error) { return schemaFiles.ReadFile(name) }

// Compile compiles every schema file. A command needs both its request and its response schema;
// a file named otherwise is an error.
func Compile() (*Schemas, error) {
	names, err := Files()
	if err != nil {
		return nil, fmt.Errorf("protocol schemas: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, name := range names {
		data, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("protocol schema %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("protocol schema %s: %w", name, err)
		}
		if err := c.AddResource(schemaBase+name, doc); err != nil {
			return nil, fmt.Errorf("protocol schema %s: %w", name, err)
		}
	}
	s := &Schemas{envelope: map[string]*jsonschema.Schema{}, commands: map[string]map[string]*jsonschema.Schema{}}
	for _, name := range names {
		base := strings.TrimSuffix(name, ".json")
		cmd, dir, ok := strings.Cut(base, ".")
		if !ok || (dir != Request && dir != Response) {
			return nil, fmt.Errorf("protocol schema %s: want <command>.request.json or <command>.response.json", name)
		}
		sch, err := c.Compile(schemaBase + name)
		if err != nil {
			return nil, fmt.Errorf("protocol schema %s: %w", name, err)
		}
		if cmd == envelope {
			s.envelope[dir] = sch
			continue
		}
		if s.commands[cmd] == nil {
			s.commands[cmd] = map[string]*jsonschema.Schema{}
		}
		s.commands[cmd][dir] = sch
	}
	for _, dir := range []string{Request, Response} {
		if s.envelope[dir] == nil {
			return nil, fmt.Errorf("protocol schemas: no %s.%s.json", envelope, dir)
		}
	}
	for cmd, dirs := range s.commands {
		for _, dir := range []string{Request, Response} {
			if dirs[dir] == nil {
				return nil, fmt.Errorf("protocol schemas: command %s has no %s.%s.json", cmd, cmd, dir)
			}
		}
	}
	return s, nil
}

// Commands lists the commands that have schemas, sorted.
func (s *Schemas) Commands() []string {
	out := make([]string, 0, len(s.commands))
	for c := range s.commands {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Violation is a message that does not match its schema: the command, the direction (Request
// or Response), the schema file and the failed keywords with where in the message they failed.
type Violation struct {
	Cmd, Direction, Schema string
	// Details are the failed keywords, each "<schema path> at <instance path>: <message>".
	Details []string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("protocol violation: %s %s does not match %s: %s", v.Cmd, v.Direction, v.Schema, strings.Join(v.Details, "; "))
}

// ValidateRequest validates one request line: the envelope, then its args against the
// command's request schema. A command without schemas is a violation.
func (s *Schemas) ValidateRequest(line []byte) error {
	msg, err := s.envelopeOf(Request, "", line)
	if err != nil {
		return err
	}
	cmd, _ := msg["cmd"].(string)
	sch, err := s.schema(cmd, Request)
	if err != nil {
		return err
	}
	args, given := msg["args"]
	if !given {
		args = nil
	}
	return check(sch, cmd, Request, args)
}

// ValidateResponse validates one response line to a request of cmd: the envelope, then, when
// it is ok, its result against the command's response schema.
func (s *Schemas) ValidateResponse(cmd string, line []byte) error {
	sch, err := s.schema(cmd, Response)
	if err != nil {
		return err
	}
	msg, err := s.envelopeOf(Response, cmd, line)
	if err != nil {
		return err
	}
	if ok, _ := msg["ok"].(bool); !ok {
		return nil
	}
	return check(sch, cmd, Response, msg["result"])
}

func (s *Schemas) schema(cmd, dir string) (*jsonschema.Schema, error) {
	sch := s.commands[cmd][dir]
	if sch == nil {
		return nil, &Violation{Cmd: cmd, Direction: dir, Schema: cmd + "." + dir + ".json",
			Details: []string{"the protocol has no command " + fmt.Sprintf("%q", cmd)}}
	}
	return sch, nil
}

// envelopeOf decodes line and validates it against the envelope schema of dir.
func (s *Schemas) envelopeOf(dir, cmd string, line []byte) (map[string]any, error) {
	name := envelope + "." + dir + ".json"
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return nil, &Violation{Cmd: cmd, Direction: dir, Schema: name, Details: []string{"not JSON: " + err.Error()}}
	}
	if cmd == "" {
		if m, ok := inst.(map[string]any); ok {
			cmd, _ = m["cmd"].(string)
		}
	}
	if err := check(s.envelope[dir], cmd, dir, inst); err != nil {
		err.(*Violation).Schema = name
		return nil, err
	}
	return inst.(map[string]any), nil
}

// maxDetails bounds the failed keywords a Violation lists.
const maxDetails = 5

// check validates inst against sch; a failure is a *Violation.
func check(sch *jsonschema.Schema, cmd, dir string, inst any) error {
	err := sch.Validate(inst)
	if err == nil {
		return nil
	}
	v := &Violation{Cmd: cmd, Direction: dir, Schema: cmd + "." + dir + ".json"}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		v.Details = []string{err.Error()}
		return v
	}
	var leaves func(u jsonschema.OutputUnit)
	leaves = func(u jsonschema.OutputUnit) {
		if len(v.Details) >= maxDetails {
			return
		}
		if len(u.Errors) == 0 && u.Error != nil {
			at := u.InstanceLocation
			if at == "" {
				at = "/"
			}
			v.Details = append(v.Details, fmt.Sprintf("schema path %s at %s: %s", u.KeywordLocation, at, u.Error))
			return
		}
		for _, c := range u.Errors {
			leaves(c)
		}
	}
	leaves(*ve.BasicOutput())
	if len(v.Details) == 0 {
		v.Details = []string{ve.Error()}
	}
	return v
}
