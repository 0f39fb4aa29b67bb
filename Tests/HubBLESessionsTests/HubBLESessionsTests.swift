// Tests of the BLE sessions rail (issue 5).
