// cosmos/evm's precompiles suite, test/bech32, 5_slashing and 7_p256: address conversion both ways, the signing
// infos and slashing params, and a P-256 signature checked by the RIP-7212 precompile.
const {expect} = require('chai');
const hre = require('hardhat');
const {ADDRESSES, CHAIN, FIRST_PAGE, contract, signers} = require('../common');

describe('bech32, slashing and p256 precompiles', function () {
  it('converts an address to bech32 and back', async function () {
    const {signer} = await signers();
    const bech32 = await contract('bech32');
    const text = await bech32.hexToBech32.staticCall(signer.address, CHAIN.prefix);
    expect(text.startsWith(`${CHAIN.prefix}1`)).to.equal(true);
    expect(await bech32.bech32ToHex.staticCall(text)).to.equal(signer.address);
  });

  it('lists signing infos, answers one, and the params', async function () {
    const slashing = await contract('slashing');
    const [infos, page] = await slashing.getSigningInfos(FIRST_PAGE);
    expect(infos.length).to.be.gt(0);
    expect(page.total).to.equal(BigInt(infos.length));
    // Ordered by consensus address, as the SDK's store keeps them.
    const addresses = infos.map((i) => i.validatorAddress.toLowerCase());
    expect([...addresses].sort()).to.deep.equal(addresses);
    for (const listed of infos) {
      const one = await slashing.getSigningInfo(listed.validatorAddress);
      expect(one.validatorAddress).to.equal(listed.validatorAddress);
      expect(one.startHeight).to.equal(listed.startHeight);
      expect(one.tombstoned).to.equal(false);
    }
    const params = await slashing.getParams();
    expect(params.signedBlocksWindow).to.be.gt(0n);
    expect(params.minSignedPerWindow.precision).to.equal(18n);
    expect(params.downtimeJailDuration).to.be.gt(0n);
  });

  it('verifies a P-256 signature', async function () {
    // cosmos/evm's case's vector (hash, r, s, x, y).
    const input = '0x' + [
      'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      '59bf72e33c396c3f60ed34b03e407f8ac4285fcb458ad8595bf6513ec1767695',
      'e9df97c1facdd47acffb3a82523f6384e43522c26a6ce3f3c183ea3d71e899e7',
      '9e66f04a4bf0a41c979fa022720881b336dfebdc74cf84614ca349262633e3e5',
      '4655cfa9f2a8472cb5d577d241bae970424df4213d0e71ff5abac4409c01da6f'].join('');
    expect(await hre.ethers.provider.call({to: ADDRESSES.p256, data: input})).to.equal(hre.ethers.toBeHex(1, 32));
  });
});
