// Package jepsen reads histories that Jepsen's register and mutex tests
// produced, so that leasesim's checker judges them beside the verdicts
// others reached: the text log porcupine's published etcd histories are in
// (ReadLog: jepsen.util lines, a process, :invoke/:ok/:fail/:info,
// :read/:write/:cas and a value), and Jepsen's history.edn (ReadEDN, with
// a small reader of the EDN a history uses). Each becomes porcupine
// operations of model.CASRegister (or model.Mutex), in the file's order (a
// line's or form's position is its time). ReadLog reads a failed cas as
// porcupine's tests do (it ran and its comparison failed); ReadEDN as
// knossos does (a :fail-ed operation did not happen). An operation whose outcome the
// client never learned (:info, a read that :fail-ed with :timed-out, an
// invoke with no completion) is kept with an unknown output, returning
// after every line, as porcupine's own tests read these logs. Bad input is
// an error naming the file, the line and what is wrong.
package jepsen
