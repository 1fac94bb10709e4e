console.log("voice-agent-service");
