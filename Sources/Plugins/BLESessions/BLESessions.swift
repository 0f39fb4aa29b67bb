/// The BLE sessions rail (`ble-sessions`, issue 5): proximity payment sessions. Being built.
enum BLESessions {}
