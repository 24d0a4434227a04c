import { describeLab, startLab } from '../../../lab';
import { parseCommandArgs, positiveInt } from '../args';
import { EXIT } from '../cli-error';

const HELP = `portal-desk lab [--port N]

Serves the portal lab (the built-in demo portals) on 127.0.0.1 until Ctrl-C and prints its URLs.`;

export async function labCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, { port: { type: 'string' } });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  const lab = await startLab({ port: values.port === undefined ? 0 : positiveInt('port', values.port, 0, 65535) });
  console.log(describeLab(lab));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await lab.stop();
  return EXIT.ok;
}
