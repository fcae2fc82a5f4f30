-- What each model call cost (issue 23). A call keeps the provider it went
-- to, whether it was replayed, the price it ran at (llm.Price as JSON) and
-- its cost at that price, so a later price change does not rewrite
-- history. Calls stored before this have no provider or price: their cost
-- is unknown (NULL), never guessed.
ALTER TABLE model_calls ADD COLUMN provider TEXT NOT NULL DEFAULT '';
ALTER TABLE model_calls ADD COLUMN capture TEXT NOT NULL DEFAULT '';
ALTER TABLE model_calls ADD COLUMN price TEXT NOT NULL DEFAULT '';
ALTER TABLE model_calls ADD COLUMN cost_usd REAL;
-- Usage over time reads calls by when they started.
CREATE INDEX model_calls_started ON model_calls (started_at);

-- What a provider's server said about a model: its context window and its
-- price, read once and kept with the provider (a provider's removal takes
-- them with it).
CREATE TABLE model_info (
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    window_tokens INTEGER NOT NULL DEFAULT 0,
    price         TEXT NOT NULL DEFAULT '',
    read_at       TEXT NOT NULL,
    PRIMARY KEY (provider, model)
) STRICT;
