package turn

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestReviewReadsWithOrWithoutTimes(t *testing.T) {
	at := time.Date(2026, 12, 7, 21, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		in      string
		want    Review
		wantErr bool
	}{
		{"unsaved: empty times", `{"turn_id":"t1","step":"tool1","thumb":-1,"labels":["slow"],"created_at":"","updated_at":""}`,
			Review{TurnID: "t1", Step: "tool1", Thumb: -1, Labels: []string{"slow"}}, false},
		{"no times at all", `{"turn_id":"t1","score":3}`, Review{TurnID: "t1", Score: 3}, false},
		{"saved", `{"id":"r1","turn_id":"t1","thumb":1,"created_at":"2026-12-07T21:00:00Z","updated_at":"2026-12-07T21:00:00Z"}`,
			Review{ID: "r1", TurnID: "t1", Thumb: 1, CreatedAt: at, UpdatedAt: at}, false},
		{"a time that is not one", `{"turn_id":"t1","created_at":"yesterday"}`, Review{}, true},
		{"a wrong type", `{"turn_id":"t1","thumb":"up"}`, Review{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Review
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	// What it writes, it reads back the same.
	r := Review{ID: "r1", TurnID: "t1", Step: "call2", Thumb: -1, Score: 2, Labels: []string{"a", "b"}, Note: "n", CreatedAt: at, UpdatedAt: at.Add(time.Minute)}
	b, _ := json.Marshal(r)
	var back Review
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}
