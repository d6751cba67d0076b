// cosmos/evm's evm-tools-compatibility/hardhat uniswap case: Uniswap v3's factory, NFT descriptor library (linked),
// position descriptor, position manager and swap router, from npm's compiled artifacts, deployed by hardhat-ethers;
// a pool made by the factory (CREATE2) and initialized at a price, a position minted through the manager and a
// swap through the router (cosmos/evm's case stops at the pool's creation). The wrapped native token is the EVM coin's
// WERC20, where cosmos/evm's case deploys a WETH9 mock.
const {expect} = require('chai');
const hre = require('hardhat');
const {ADDRESSES, signers} = require('../common');

const artifact = (pkg, path) => require(`@uniswap/${pkg}/artifacts/contracts/${path}`);
const FACTORY = artifact('v3-core', 'UniswapV3Factory.sol/UniswapV3Factory.json');
const POOL = artifact('v3-core', 'UniswapV3Pool.sol/UniswapV3Pool.json');
const NFT_DESCRIPTOR = artifact('v3-periphery', 'libraries/NFTDescriptor.sol/NFTDescriptor.json');
const DESCRIPTOR = artifact('v3-periphery', 'NonfungibleTokenPositionDescriptor.sol/NonfungibleTokenPositionDescriptor.json');
const MANAGER = artifact('v3-periphery', 'NonfungiblePositionManager.sol/NonfungiblePositionManager.json');
const ROUTER = artifact('v3-periphery', 'SwapRouter.sol/SwapRouter.json');

async function deploy(json, signer, args = [], libraries = {}) {
  const factory = await hre.ethers.getContractFactoryFromArtifact(
    {...json, contractName: json.contractName, sourceName: json.sourceName, deployedLinkReferences: json.deployedLinkReferences || {}},
    {signer, libraries});
  const contract = await factory.deploy(...args);
  await contract.waitForDeployment();
  return contract;
}

describe('Uniswap v3', function () {
  let signer, factory, manager, router, descriptor;

  before(async function () {
    ({signer} = await signers());
    factory = await deploy(FACTORY, signer);
    const library = await deploy(NFT_DESCRIPTOR, signer);
    descriptor = await deploy(DESCRIPTOR, signer, [ADDRESSES.werc20, hre.ethers.encodeBytes32String('CHAIN')],
      {NFTDescriptor: await library.getAddress()});
    manager = await deploy(MANAGER, signer, [await factory.getAddress(), ADDRESSES.werc20, await descriptor.getAddress()]);
    router = await deploy(ROUTER, signer, [await factory.getAddress(), ADDRESSES.werc20]);
  });

  it('deploys the periphery wired to the factory and the WERC20', async function () {
    expect(await manager.factory()).to.equal(await factory.getAddress());
    expect(await manager.WETH9()).to.equal(ADDRESSES.werc20);
    expect(await router.WETH9()).to.equal(ADDRESSES.werc20);
    expect(await descriptor.WETH9()).to.equal(ADDRESSES.werc20);
    expect(await factory.owner()).to.equal(signer.address);
    expect(await factory.feeAmountTickSpacing(3000)).to.equal(60n);
  });

  let tokens, pool;

  it('makes a pool and initializes it at a price', async function () {
    tokens = [];
    for (let i = 0; i < 2; i++) tokens.push(await (await hre.ethers.deployContract('Token')).getAddress());
    const receipt = await (await factory.createPool(tokens[0], tokens[1], 3000)).wait();
    expect(receipt.status).to.equal(1);
    const address = await factory.getPool(tokens[0], tokens[1], 3000);
    expect(await factory.getPool(tokens[1], tokens[0], 3000)).to.equal(address);
    // The pool's code as compiled, its immutables (factory, tokens, fee, tick spacing) filled in.
    expect((await hre.ethers.provider.getCode(address)).length).to.equal(POOL.deployedBytecode.length);
    pool = new hre.ethers.Contract(address, POOL.abi, signer);
    expect(await pool.factory()).to.equal(await factory.getAddress());
    expect([await pool.fee(), await pool.tickSpacing()]).to.deep.equal([3000n, 60n]);
    const [token0, token1] = tokens.map((t) => t.toLowerCase()).sort();
    expect([(await pool.token0()).toLowerCase(), (await pool.token1()).toLowerCase()]).to.deep.equal([token0, token1]);
    const price = 2n ** 96n;       // sqrt(1) in Q64.96
    await (await pool.initialize(price)).wait();
    const slot0 = await pool.slot0();
    expect(slot0.sqrtPriceX96).to.equal(price);
    expect(slot0.tick).to.equal(0n);
    expect(slot0.unlocked).to.equal(true);
  });

  it('mints a position through the manager and swaps through the router', async function () {
    const [token0, token1] = [...tokens].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))
      .map((t) => new hre.ethers.Contract(t, hre.artifacts.readArtifactSync('Token').abi, signer));
    const amount = hre.ethers.parseEther('1000');
    for (const token of [token0, token1]) {
      await (await token.mint(signer.address, amount)).wait();
      await (await token.approve(await manager.getAddress(), amount)).wait();
      await (await token.approve(await router.getAddress(), amount)).wait();
    }
    const deadline = BigInt((await hre.ethers.provider.getBlock('latest')).timestamp) + 3600n;
    // Set gas limits for the mint and the swap: the pool's oracle writes once a second, and several automined
    // blocks share a second here (Hardhat and Anvil step each block's timestamp a second at least), so an
    // estimate made in one second falls ~4k gas short when the tx's block lands in the next.
    const minted = await (await manager.mint({token0: await token0.getAddress(), token1: await token1.getAddress(),
      fee: 3000, tickLower: -600, tickUpper: 600, amount0Desired: hre.ethers.parseEther('100'),
      amount1Desired: hre.ethers.parseEther('100'), amount0Min: 0, amount1Min: 0, recipient: signer.address,
      deadline}, {gasLimit: 1_000_000})).wait();
    expect(minted.status).to.equal(1);
    expect(await manager.balanceOf(signer.address)).to.equal(1n);
    const position = await manager.positions(1);
    expect(position.liquidity).to.be.gt(0n);
    expect(await pool.liquidity()).to.equal(position.liquidity);

    const before = await token1.balanceOf(signer.address);
    const amountIn = hre.ethers.parseEther('1');
    const swapped = await (await router.exactInputSingle({tokenIn: await token0.getAddress(),
      tokenOut: await token1.getAddress(), fee: 3000, recipient: signer.address, deadline, amountIn,
      amountOutMinimum: 0, sqrtPriceLimitX96: 0}, {gasLimit: 300_000})).wait();
    expect(swapped.status).to.equal(1);
    const out = (await token1.balanceOf(signer.address)) - before;
    // Less than the input at a 1:1 price: the 0.3% fee and the price moving along the curve.
    expect(out).to.be.gt((amountIn * 99n) / 100n).and.to.be.lt(amountIn);
    expect((await pool.slot0()).tick).to.be.lt(0n);
  });
});
