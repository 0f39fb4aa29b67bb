/// The admin console served at `/admin` (issue 7). Being built.
enum HubConsole {}
