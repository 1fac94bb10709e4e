-- Scale-out (issue 21): admission picks a media node with room from the registry in Redis and
-- the session remembers it, so a socket that reaches another node is refused (4409) and a dial
-- or a re-asked inbound webhook builds its stream URL for the same node. Null: admitted while no
-- media node had ever registered (single-node setups): any node may take it.
alter table voice_sessions add column media_node_id text;
alter table voice_sessions add column media_node_url text;
