# pragma version 0.4.3
# A contract account for the contract tests: it makes any call it is told to (as a seller, buyer,
# bidder or token receiver would), and when it receives ether or a token it can refuse, or call back
# into a contract (a reentrancy attempt) and record whether that call went through.

hookTarget: public(address)
hookData: public(Bytes[1024])
hookValue: public(uint256)
refuseEther: public(bool)
hookCalls: public(uint256)
hookSuccesses: public(uint256)
received: public(uint256)


@external
@payable
def execute(target: address, data: Bytes[1024], amount: uint256) -> Bytes[1024]:
    return raw_call(target, data, value=amount, max_outsize=1024)


# On every later receipt of ether or of a token, call `target` with `data` and `amount` wei of its
# own (empty target: nothing).
@external
def setHook(target: address, data: Bytes[1024], amount: uint256 = 0):
    self.hookTarget = target
    self.hookData = data
    self.hookValue = amount


@external
def setRefuseEther(refuse: bool):
    self.refuseEther = refuse


@internal
def _hook():
    if self.hookTarget != empty(address):
        self.hookCalls += 1
        if raw_call(self.hookTarget, self.hookData, value=self.hookValue, revert_on_failure=False):
            self.hookSuccesses += 1


@external
@payable
def __default__():
    assert not self.refuseEther, "refusing ether"
    self.received += msg.value
    self._hook()


@external
def onERC721Received(operator: address, owner: address, tokenId: uint256, data: Bytes[1024]) -> bytes4:
    self._hook()
    return method_id("onERC721Received(address,address,uint256,bytes)", output_type=bytes4)
