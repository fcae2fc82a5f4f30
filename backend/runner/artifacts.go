package runner

import (
	"github.com/agentdeck/agentdeck/backend/artifact"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// emitBlockArtifacts reports the html and svg blocks of a turn's answer as
// artifacts, before final_answer: here, where every workflow's run ends,
// so a chat, a pipeline's last stage and a revision alike give them. They
// are read from the final text alone, so a replay or a re-run that gives
// the same answer gives the same events. A turn that failed or was
// stopped has no final answer, and no artifacts from it.
func emitBlockArtifacts(em *turn.Emitter, res turn.Result) {
	if !res.OK || res.Cancelled {
		return
	}
	for _, a := range artifact.Blocks(res.FinalText) {
		em.Emit(turn.Draft{StageID: res.FinalStageID, Data: a})
	}
}
