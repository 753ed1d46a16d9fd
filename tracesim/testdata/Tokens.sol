// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// Test tokens for tracesim: OpenZeppelin's ERC-20 and ERC-721 as published on
// npm (@openzeppelin/contracts 5.7.0), with OpenZeppelin's Multicall on the
// ERC-20 so that multicall(bytes[]) decoding runs on real code. Compiled by
// `go generate ./tracesim` into testdata/tokens.json.

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Multicall} from "@openzeppelin/contracts/utils/Multicall.sol";

contract TestToken is ERC20, Multicall {
    constructor(string memory name_, string memory symbol_, uint256 supply) ERC20(name_, symbol_) {
        _mint(msg.sender, supply);
    }
}

contract TestNFT is ERC721 {
    constructor() ERC721("Test NFT", "TNFT") {}

    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }
}
