package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/limenhq/limen/action"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Action decodes an API action taken at at: input_json must be a JSON
// object (an empty string counts as {}), decoded with numbers kept as
// json.Number so that keys spell them as the caller did. The error names
// the field and what to send instead; with it, the action is returned
// without arguments.
func Action(a *limenv1.Action, at time.Time) (action.Action, error) {
	act := action.Action{
		User: a.GetUser(), Agent: a.GetAgent(), Session: a.GetSession(), Tool: a.GetTool(),
		Input: map[string]any{}, Cwd: a.GetCwd(), Time: at,
	}
	input, err := decodeInput(a.GetInputJson())
	if err != nil {
		return act, err
	}
	act.Input = input
	return act, nil
}

// Preview decodes an action limend has already decided (from a Decision
// or an ask), for showing it or matching rules against it as limend did.
// It never fails: an input limend could not have accepted gives an action
// without arguments, since a preview decides nothing.
func Preview(a *limenv1.Action) action.Action {
	act, _ := Action(a, time.Time{})
	return act
}

func decodeInput(s string) (map[string]any, error) {
	input := map[string]any{}
	raw := bytes.TrimSpace([]byte(s))
	if len(raw) == 0 {
		return input, nil
	}
	if raw[0] != '{' {
		return nil, errors.New(`action.input_json must be a JSON object of the tool's arguments, such as {"command":"ls -la"}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&input); err != nil {
		return nil, fmt.Errorf(`action.input_json is not valid JSON (%v): send an object such as {"command":"ls -la"}`, err)
	}
	if dec.More() {
		return nil, errors.New("action.input_json has data after the JSON object: send exactly one object")
	}
	return input, nil
}
