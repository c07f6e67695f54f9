-- CRAFTED, not a real session: Goose's sessions.db as schema version 9 lays it out
-- (block/goose crates/goose/src/session/session_manager.rs at dbec1655c17720cb591291603f1337ed7856afbd,
-- create_schema; message content as crates/goose/src/conversation/message.rs and tool_result_serde.rs
-- serialise it). Times are created_timestamp seconds from 1760000000 (2025-10-09T08:53:20Z).
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (9);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
    tenant_id TEXT, user_id TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT
);

-- Session 1: the person's, two cycles (a commit, then three more prompts).
INSERT INTO sessions (id, name, session_type, working_dir, total_tokens, input_tokens, output_tokens,
    accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, provider_name, model_config_json)
VALUES ('20251009_1', 'greeting', 'user', '/work/app', 9300, 9000, 300, 13200, 12000, 1200, 'anthropic',
    '{"model_name":"claude-sonnet-4-5","context_limit":null,"temperature":null,"max_tokens":null,"toolshim":false,"toolshim_model":null}');

INSERT INTO messages (message_id, session_id, role, created_timestamp, metadata_json, content_json) VALUES
('m01', '20251009_1', 'user', 1760000000, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Add a greeting function to app.py"}]'),
('m02', '20251009_1', 'assistant', 1760000004, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Let me look at app.py first."},{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"view","path":"app.py"}}}}]'),
('m03', '20251009_1', 'user', 1760000005, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"def main():\n    pass\n"}],"isError":false}}}]'),
('m04', '20251009_1', 'assistant', 1760000009, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolRequest","id":"t2","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"str_replace","path":"app.py","old_str":"def mian():","new_str":"def greet():"}}}}]'),
('m05', '20251009_1', 'user', 1760000010, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t2","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"No match found for the specified text."}],"isError":true}}}]'),
('m06', '20251009_1', 'assistant', 1760000014, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolRequest","id":"t3","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"str_replace","path":"app.py","old_str":"def main():","new_str":"def greet():\n    return \"hi\"\n\ndef main():"}}}}]'),
('m07', '20251009_1', 'user', 1760000015, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t3","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"The file app.py has been edited."}],"isError":false}}}]'),
('m08', '20251009_1', 'assistant', 1760000018, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolRequest","id":"t4","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"python -m pytest -q"}}}}]'),
('m09', '20251009_1', 'user', 1760000025, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t4","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"2 passed in 0.01s"}],"isError":false}}}]'),
('m10', '20251009_1', 'assistant', 1760000028, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Added greet() to app.py; the tests pass."}]'),
('m11', '20251009_1', 'user', 1760000060, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Commit it"}]'),
('m12', '20251009_1', 'assistant', 1760000063, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolRequest","id":"t5","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"git commit -am ''Add greet''"}}}}]'),
('m13', '20251009_1', 'user', 1760000064, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t5","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"[main 1a2b3c4] Add greet\n 1 file changed"}],"isError":false}}}]'),
('m14', '20251009_1', 'assistant', 1760000066, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Committed."}]'),
('m15', '20251009_1', 'user', 1760000120, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Now delete the build folder"}]'),
('m16', '20251009_1', 'assistant', 1760000123, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolRequest","id":"t6","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"rm -rf build"}}}}]'),
('m17', '20251009_1', 'user', 1760000130, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t6","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"The user has declined to run this tool. DO NOT attempt to call this tool again. If there are no alternative methods to proceed, clearly explain the situation and STOP."}],"isError":true}}}]'),
('m18', '20251009_1', 'assistant', 1760000132, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Understood; I left the build folder."}]'),
('m19', '20251009_1', 'user', 1760000140, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Write down what greet does in notes.md"}]'),
('m20', '20251009_1', 'assistant', 1760000142, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolRequest","id":"t7","toolCall":{"status":"success","value":{"name":"developer__file_write","arguments":{"path":"/work/app/notes.md","content":"greet returns hi\n"}}}}]'),
('m21', '20251009_1', 'user', 1760000150, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t7","toolResult":{"status":"error","error":"-32603: Interrupted by the user to make a correction"}}]'),
('m22', '20251009_1', 'assistant', 1760000150, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"We interrupted the existing call to developer__file_write. How would you like to proceed?"}]'),
('m23', '20251009_1', 'user', 1760000170, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Put it in docs/notes.md instead"}]'),
('m24', '20251009_1', 'user', 1760000171, '{"userVisible":false,"agentVisible":true}',
 '[{"type":"text","text":"<info-msg>The current working directory is /work/app</info-msg>"}]'),
('m25', '20251009_1', 'assistant', 1760000172, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"thinking","thinking":"A docs folder.","signature":"sig"},{"type":"text","text":"Writing docs/notes.md."}]'),
('m25', '20251009_1', 'assistant', 1760000173, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolRequest","id":"t8","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"write","path":"docs/notes.md","file_text":"greet returns hi\n"}}}}]'),
('m26', '20251009_1', 'user', 1760000174, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"toolResponse","id":"t8","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"Successfully wrote to docs/notes.md"}],"isError":false}}}]'),
('m27', '20251009_1', 'assistant', 1760000176, '{"userVisible":true,"agentVisible":true}',
 '[{"type":"text","text":"Done: docs/notes.md says what greet does."}]'),
('m28', '20251009_1', 'assistant', 1760000177, '{"userVisible":true,"agentVisible":false}',
 '[{"type":"systemNotification","notificationType":"inlineMessage","msg":"Context compacted"}]');

-- Session 2: a sub-agent's own session, which names no parent: not read.
INSERT INTO sessions (id, session_type, working_dir, accumulated_input_tokens, accumulated_output_tokens, provider_name, model_config_json)
VALUES ('20251009_2', 'sub_agent', '/work/app', 500, 50, 'anthropic', '{"model_name":"claude-sonnet-4-5"}');
INSERT INTO messages (message_id, session_id, role, created_timestamp, metadata_json, content_json) VALUES
('s01', '20251009_2', 'user', 1760000200, '{"userVisible":true,"agentVisible":true}', '[{"type":"text","text":"List the tests"}]'),
('s02', '20251009_2', 'assistant', 1760000202, '{"userVisible":true,"agentVisible":true}', '[{"type":"text","text":"test_app.py"}]');

-- Session 3: the person's, but imported from a legacy file: no model recorded.
INSERT INTO sessions (id, session_type, working_dir, accumulated_input_tokens, accumulated_output_tokens)
VALUES ('20251009_3', 'user', '/work/app', 700, 70);
INSERT INTO messages (message_id, session_id, role, created_timestamp, metadata_json, content_json) VALUES
('n01', '20251009_3', 'user', 1760000300, '{"userVisible":true,"agentVisible":true}', '[{"type":"text","text":"hello"}]'),
('n02', '20251009_3', 'assistant', 1760000302, '{"userVisible":true,"agentVisible":true}', '[{"type":"text","text":"Hi."}]');

-- Session 4: through OpenRouter, tokens only as the last request's counts, and two rows of the wrong shape.
INSERT INTO sessions (id, session_type, working_dir, input_tokens, output_tokens, provider_name, model_config_json)
VALUES ('20251010_1', 'user', '/work/app', 800, 40, 'openrouter', '{"model_name":"openai/gpt-4o"}');
INSERT INTO messages (message_id, session_id, role, created_timestamp, metadata_json, content_json) VALUES
('o01', '20251010_1', 'user', 1760086400, '{"userVisible":true,"agentVisible":true}', '[{"type":"text","text":"Explain app.py"}]'),
('o02', '20251010_1', 'assistant', 1760086403, '{"userVisible":true,"agentVisible":true}', '{"type":"text"'),
('o03', '20251010_1', 'system', 1760086404, '{"userVisible":true,"agentVisible":true}', '[{"type":"text","text":"?"}]'),
('o04', '20251010_1', 'assistant', 1760086405, '{"userVisible":true,"agentVisible":true}', '[{"type":"text","text":"It defines greet and main."}]');
