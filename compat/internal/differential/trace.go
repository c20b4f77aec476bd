package differential

import (
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Trace is what one runner observed executing a Script (see the package documentation). Both
// runners produce it as JSON; Diff compares two.
type Trace struct {
	// RestoreError is the error class of the restore ("" when it succeeded); no step runs after
	// a failed restore.
	RestoreError string `json:"restoreError"`
	// RestoreMessage is the restore error's message, for people only.
	RestoreMessage string `json:"restoreMessage,omitempty"`
	// Restored is the state right after the restore.
	Restored State `json:"restored"`
	// Steps has one entry per script step.
	Steps []StepTrace `json:"steps"`
	// Close is what the final close did.
	Close CloseTrace `json:"close"`
}

// StepTrace is what one step did.
type StepTrace struct {
	Op Op `json:"op"`
	// Skipped marks an abort without a commit to abort.
	Skipped bool `json:"skipped,omitempty"`
	// Append and Compact are the commit's increments; nil is Java's Optional.empty().
	Append  *Increment `json:"append"`
	Compact *Increment `json:"compact"`
	// Error is the error class ("" for none).
	Error string `json:"error"`
	// Message is the error's message, for people only.
	Message string `json:"message,omitempty"`
	// Builds are the build outcomes that materialized during the step, in order.
	Builds []BuildRecord `json:"builds"`
	// Deleted are the generated archives deleted during the step, in call order.
	Deleted []string `json:"deleted"`
	// State is the maintainer's state after the step.
	State State `json:"state"`
}

// CloseTrace is what close did.
type CloseTrace struct {
	Error   string        `json:"error"`
	Message string        `json:"message,omitempty"`
	Builds  []BuildRecord `json:"builds"`
	Deleted []string      `json:"deleted"`
}

// Increment is one FullTextIndexIncrement as name lists (never nil inside a present increment).
type Increment struct {
	New     []string `json:"new"`
	Deleted []string `json:"deleted"`
}

// BuildRecord is one materialized build: the request (key, level, files) and its outcome; Name is
// the generated archive, empty when the outcome generates none.
type BuildRecord struct {
	Key     string       `json:"key"`
	Level   int32        `json:"level"`
	Files   []SourceFile `json:"files"`
	Outcome Outcome      `json:"outcome"`
	// Attempt counts the attempts of one sorted-family build request, from 1 (absent for
	// full-text builds, which are tried once).
	Attempt int    `json:"attempt,omitempty"`
	Name    string `json:"name,omitempty"`
}

// State is the maintainer's state between calls.
type State struct {
	// Current are the current payloads in the maintainer's list order.
	Current []PayloadRef `json:"current"`
	// Retired are the payload names that leave with the next commit, in order.
	Retired []string `json:"retired"`
	// Active are the active eligible source files, sorted by name.
	Active []DataFile `json:"active"`
	// BuildPending is buildNotCompleted().
	BuildPending bool `json:"buildPending"`
	// PendingMaintenance is hasPendingMaintenance() (sorted family only; absent for full-text).
	PendingMaintenance *bool `json:"pendingMaintenance,omitempty"`
}

// PayloadRef names a current payload and the data level its source meta records.
type PayloadRef struct {
	Name  string `json:"name"`
	Level int32  `json:"level"`
}

// Error classes (see the package documentation).
const (
	ErrClassNone          = ""
	ErrClassInvalidAppend = "invalidAppend"
	ErrClassBuildFailed   = "buildFailed"
	ErrClassOther         = "other"
)

// ErrBuildFailed is the deterministic builder's failure; maintainer errors wrapping it are
// class "buildFailed".
var ErrBuildFailed = errors.New("deterministic build failure")

// invalidAppendMessage is the substring of the Go maintainer's rejection of eligible append
// files; Go's error is not typed, so its message is the contract.
const invalidAppendMessage = "append files must not be primary-key full-text index sources"

// invalidSortedAppendMessage is the sorted maintainer's counterpart of invalidAppendMessage.
const invalidSortedAppendMessage = "append files must not be primary-key sorted index sources"

// classify maps a Go maintainer error to its class.
func classify(err error) string {
	switch {
	case err == nil:
		return ErrClassNone
	case errors.Is(err, ErrBuildFailed):
		return ErrClassBuildFailed
	case strings.Contains(err.Error(), invalidAppendMessage), strings.Contains(err.Error(), invalidSortedAppendMessage):
		return ErrClassInvalidAppend
	default:
		return ErrClassOther
	}
}

func message(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Diff compares two traces of one script field by field, ignoring messages, and returns a
// go-cmp diff (empty when they agree). want is conventionally Java's trace.
func Diff(want, got Trace) string {
	if reflect.DeepEqual(withoutMessages(want), withoutMessages(got)) {
		return "" // the common case, without go-cmp's cost
	}
	return cmp.Diff(want, got,
		cmpopts.IgnoreFields(Trace{}, "RestoreMessage"),
		cmpopts.IgnoreFields(StepTrace{}, "Message"),
		cmpopts.IgnoreFields(CloseTrace{}, "Message"),
		cmpopts.EquateEmpty())
}

// withoutMessages returns t with every message cleared, leaving t itself untouched.
func withoutMessages(t Trace) Trace {
	t.RestoreMessage, t.Close.Message = "", ""
	t.Steps = slices.Clone(t.Steps)
	for i := range t.Steps {
		t.Steps[i].Message = ""
	}
	return t
}
