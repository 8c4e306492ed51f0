// Package jepsen reads histories that Jepsen's register tests produced, so
// that leasesim's checker judges them beside the verdicts others reached:
// the text log porcupine's published etcd histories are in (jepsen.util
// lines: a process, :invoke/:ok/:fail/:info, :read/:write/:cas and a
// value). Each becomes porcupine operations of model.CASRegister, in the
// log's order (a line's number is its time). An operation whose outcome the
// client never learned (:info, a read that :fail-ed with :timed-out, an
// invoke with no completion) is kept with an unknown output, returning
// after every line, as porcupine's own tests read these logs. Bad input is
// an error naming the file, the line and what is wrong.
package jepsen
