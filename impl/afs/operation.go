package afs

import "strings"

// Operation is one of the things a caller can ask of a path. The set is the
// vocabulary of afs_stat's capabilities (source 1: "a capabilities list of
// the operations the underlying provider implements").
type Operation string

// The operations, each named as it appears in capabilities.
const (
	OpList    Operation = "list"
	OpRead    Operation = "read"
	OpStat    Operation = "stat"
	OpSearch  Operation = "search"
	OpWrite   Operation = "write"
	OpDelete  Operation = "delete"
	OpExec    Operation = "exec"
	OpExplain Operation = "explain"
)

// Operations lists every operation in the order capabilities are reported.
var Operations = []Operation{OpList, OpRead, OpStat, OpSearch, OpWrite, OpDelete, OpExec, OpExplain}

// OpSet is a set of operations.
type OpSet uint8

func (o Operation) bit() OpSet {
	for i, op := range Operations {
		if op == o {
			return 1 << i
		}
	}
	return 0
}

// SetOf returns the set holding ops.
func SetOf(ops ...Operation) OpSet {
	var s OpSet
	for _, op := range ops {
		s |= op.bit()
	}
	return s
}

// Has reports whether op is in s.
func (s OpSet) Has(op Operation) bool { return op.bit() != 0 && s&op.bit() != 0 }

// List returns the operations in s in the order of Operations; never nil, so
// an empty set marshals as [] rather than null.
func (s OpSet) List() []Operation {
	out := []Operation{}
	for _, op := range Operations {
		if s.Has(op) {
			out = append(out, op)
		}
	}
	return out
}

// String joins the operations with spaces, for human-readable results.
func (s OpSet) String() string {
	names := make([]string, 0, len(Operations))
	for _, op := range s.List() {
		names = append(names, string(op))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}

// readOps are what a networkRead rule opens (source 5.7): everything that
// observes a path and nothing that changes it.
var readOps = SetOf(OpList, OpRead, OpStat, OpSearch, OpExplain)

// allOps is what a resolver overlay opens.
var allOps = SetOf(Operations...)
