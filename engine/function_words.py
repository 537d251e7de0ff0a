# ruff: noqa: RUF001  # words in Cyrillic, Greek and Hebrew: their letters look like Latin ones
"""Function words of the languages engine/analysis.py stems: the "the", "of" and "what" of
each, which carry no topic. A question's function words are not weighed, looked up or marked
in snippets (engine.analysis.query_terms), as English's are not (engine.words.STOPWORDS).

Compact hand lists, not a package's: the lists on PyPI (stopwords-iso, stop-words) are built
for dropping words from web pages and hold content words a lecture is about (Spanish
"trabajo", "estado", "valor", "ejemplo"; English "computer", "research", "system"), and a
question that lost them would find less. These hold only articles, pronouns, prepositions,
conjunctions, the commonest forms of "to be" and "to have", question words and a few
adverbs of degree, written as people type them (accents are folded when read, see
:func:`engine.analysis.is_function_word`). Languages that share a stemmer share a list.
Imports nothing.
"""

from __future__ import annotations

_SPANISH = """
a al algo algunas algunos ante antes como con contra cual cuales cuando cuanto cuánto cómo
cuál cuáles cuándo de del desde donde dónde durante e el ella ellas ello ellos en entre era
eran es esa esas ese eso esos esta estas este esto estos está están estar fue fueron ha han
hay hasta la las le les lo los me mi mis muy más ni no nos nosotros o os otra otras otro otros
para pero por porque que qué quien quién quienes se sea ser si sí sin sobre son su sus
también tan te tiene tienen todo todos tu tus tú u un una unas uno unos usted ustedes y ya yo él
"""
_FRENCH = """
à au aux avec c ce ces cet cette comme comment combien d dans de des du elle elles en est et
être étaient était été eu il ils j je l la le les leur leurs lui m ma mais me même mes moi mon
n ne nos notre nous on ont ou où par pas plus pour pourquoi qu quand que quel quelle quelles
quels qui s sa sans se ses son sont sur t ta te tes toi ton très tu un une vos votre vous y
aussi a ai as avons avez
"""
_GERMAN = """
der die das den dem des ein eine einen einem einer eines und oder aber ist sind war waren
sein hat haben wird werden wurde in im ins an am auf aus bei mit nach von vom zu zum zur für
über unter vor durch um ich du er sie es wir ihr mich mir dich dir sich uns euch ihm ihn
ihnen ihre ihrer ihren seine seiner seinen nicht kein keine auch als wie was wer wo wann
warum welche welcher welches dass daß ob wenn so sehr noch nur schon mehr dies diese dieser
dieses diesen diesem man
"""
_ITALIAN = """
a ad al alla alle allo agli ai all anche che chi ci come con cosa c d da dal dalla dalle dall
dei del della delle dello degli dell di dov dove e è ed gli ha hanno ho i il in io l la le lei
li lo loro lui ma mi ne nei nel nella nelle nell noi non o per perché più qual quale quali
quando quanto quest questa queste questi questo quello quella se si sia sono su sua sue suo
suoi sul sulla sull tra fra tu un una uno voi vi
"""
_PORTUGUESE = """
a à ao aos as às com como da das de do dos e é ela elas ele eles em entre era essa esse esta
este está estão eu foi foram há isso isto já lhe mais mas me meu minha muito na nas não no nos
nós o os ou para pela pelas pelo pelos por porque qual quando que quê quem se sem ser seu seus
sua suas são também te tem têm um uma umas uns você vocês onde
"""
_CATALAN = """
a al als amb com d de del dels el els en és era i l la les li lo m n per però perquè que què
qui quan quin quina quins quines on s se si sense sobre són t un una uns unes jo tu ell ella
nosaltres vosaltres ells elles seu seva seus seves també molt més no ni o ha han hi ho
"""
_DUTCH = """
de het een en of maar is zijn was waren wordt worden werd in op aan met van voor naar bij uit
over door om tot te als dat die dit deze wat wie waar wanneer waarom hoe welke ik jij je hij zij
ze wij we u hun haar hem mij me ons niet geen ook er nog al dan zo zeer meer heeft hebben had
"""
_DANISH = """
og i at er en et den det de der som på til med for af har have var være fra om ikke men jeg du
han hun vi man sig sin sit sine hans hendes deres dem hvad hvem hvor hvordan hvorfor hvilken
hvilke når eller også kan skal vil meget mere så end under over efter ved blev bliver
"""
_NORWEGIAN = """
og i er en et ei den det de der som på til med for av har hadde var være vere fra om ikke
ikkje men jeg eg du han hun ho vi me man seg sin sitt sine hans hennes deres dem dei hva kva hvem
hvor kvar hvordan korleis hvorfor kvifor hvilken hvilke når eller også kan skal vil veldig mer
så enn under over etter ved ble blir vart
"""
_SWEDISH = """
och i att är en ett den det de som på till med för av har hade var vara från om inte men jag du
han hon vi man sig sin sitt sina hans hennes deras dem vad vem hur varför vilken vilka när
eller också kan ska skall vill mycket mer så än under över efter vid blev blir detta denna
dessa
"""
_FINNISH = """
ja on ei se että oli ovat olla joka jotka mikä mitä kuka missä miten miksi milloin kun tai
mutta myös vain kuin niin jo sekä minä sinä hän me te he tämä tuo nämä ne sen siitä sitä tässä
siinä nyt ole eikä jos kanssa
"""
_RUSSIAN = """
и в во не что он на я с со как а то все всё она так его но да ты к у же вы за бы по только ее
её мне было от меня нет о об из ему когда ли если уже или ни быть был него до вас там себя ей
они где есть для мы тебя их чем была сам без кто этот того потому этого какой какая какие это
эта эти этом этой при про через над под между почему зачем тоже
"""
_ROMANIAN = """
și şi în a al ale ai la de din pe cu un o unui unei niște nişte este sunt era fost fi ce care
cine cum când unde pentru că să nu mai sau dar iar se îl le lor lui ei el ea eu tu noi voi
ele acest această aceasta acestea acesta aceste acel acea foarte prin spre despre până după
sub între fără ca decât
"""
_TURKISH = """
ve ile bir bu şu o da de ki mi mı mu mü ne için gibi daha çok en ama veya ya ben sen biz siz
onlar onun bunu bunun olan olarak değil var yok ise kadar sonra önce nasıl neden niçin nerede
hangi kim her
"""
_INDONESIAN_MALAY = """
yang dan di ke dari ini itu dengan untuk pada adalah ialah dalam tidak akan juga atau ada oleh
sebagai bisa boleh dapat telah sudah apa siapa mengapa kenapa bagaimana kapan bila mana saya
aku kamu anda dia kami kita mereka ia tersebut karena kerana jika lebih sangat
"""
_HUNGARIAN = """
a az egy és is nem hogy de meg van volt lesz vagy mint csak már még sem ez azt ezt ennek annak
itt ott mi mit ki kik mikor hol hogyan miért melyik én te ő ti ők ha akkor pedig mert nagyon
több vannak voltak által után előtt alatt között
"""
_GREEK = """
και το η ο οι τα του της των τον την τους τις σε στο στη στην στον στα στις στους με για από
που πως πώς τι ποιος ποια ποιο είναι ήταν θα να δεν μη μην ή αλλά ως αυτό αυτή αυτός αυτά
αυτές αυτοί εγώ εσύ εμείς εσείς ένα ένας μια μία ενός μιας όταν γιατί πού πολύ πιο επίσης
"""
_SERBO_CROATIAN = """
i u na je su da se za od do sa s o po iz kao što šta ali ili a to taj ta ovaj ova ovo koji koja
koje kako gdje gde zašto kada kad ko tko biti bio bila bilo nije nisu ne još već samo vrlo
više ja ti on ona ono mi vi oni njegov njen njihov sam si smo ste
и у на је су да се за од до са о по из као што шта али или а то тај та овај ова ово који која
које како где зашто када кад ко бити био била било није нису не још већ само врло више ја ти
он она оно ми ви они
"""
_LITHUANIAN = """
ir į iš su be per prie apie po už ant ar bet kad kaip kas kur kodėl kada kuris kuri kurie yra
buvo bus būti tai šis ši tas ta jis ji jie jos aš tu mes jūs savo ne nėra taip pat labai jau
dar tik arba nei
"""
_IRISH = """
an na agus ar ag i is ba le de do go a ó ní níl bhí tá atá sé sí siad mé tú muid sibh seo sin
cad cé conas cén cá mar ach nó leis don faoi idir chun t h n d b
"""
_BASQUE = """
eta da ez bat du dira zen ziren ere baina edo hau hori hura hauek horiek nik zuk hark guk zuek
haiek zer nor non noiz nola zergatik zein bere baino oso dute izan dago ditu dela den
"""
_ARMENIAN = """
և եւ ու էլ է են էր էին եմ ես ենք եք այս այդ այն որ ով ինչ ինչու ինչպես երբ որտեղ որը որոնք
մի մեկ համար հետ մեջ վրա տակ մասին նա նրանք մենք դուք իր իրենց չի չէ թե կամ բայց նաև նաեւ
շատ ավելի
"""
_ARABIC = """
في من إلى الى على عن مع هذا هذه ذلك تلك التي الذي الذين و أو او ثم لا لم لن ما ماذا لماذا كيف
متى أين هل هو هي هم نحن أنا أنت كان كانت يكون إن أن ان قد كل بين عند حتى بعد قبل أي أيضا
"""
_HINDI = """
के का की है में और से को एक यह वह ने पर भी हैं था थे थी नहीं तो ही या हो कि जो कर इस उस इसके
उसके लिए कुछ क्या क्यों कैसे कब कहाँ कहां कौन मैं हम तुम आप वे ये साथ बहुत अपने अपना अपनी होता
होती होते
"""
_NEPALI = """
र को का की मा छ छन् हो थियो थिए पनि यो त्यो यस त्यस एक लागि भन्दा के किन कसरी कहाँ कुन म हामी
तिमी तपाईं उनी उनको आफ्नो ले बाट सँग तर वा नै
"""
_TAMIL = """
மற்றும் ஒரு இந்த அந்த என்ன எப்படி ஏன் எங்கே யார் எது இது அது நான் நீ நாம் நாங்கள் அவர் அவள்
அவன் அவர்கள் என்று மேலும் ஆனால் அல்லது இல்லை உள்ளது பற்றி மிகவும் கூட
"""
_YIDDISH = """
און אין איז די דער דאָס דאס א אַ אַן צו פֿון פון מיט אויף ניט נישט ער זי מיר איך דו זיי וואָס
וואס ווער ווי ווען פֿאַרוואָס פארוואס וווּ וואו אַז אז אויך זייער האָט האט געווען זײַן זיין
"""

_BY_LANGUAGE = {
    "es": _SPANISH, "fr": _FRENCH, "de": _GERMAN, "it": _ITALIAN, "pt": _PORTUGUESE,
    "ca": _CATALAN, "nl": _DUTCH, "da": _DANISH, "no": _NORWEGIAN, "nn": _NORWEGIAN,
    "sv": _SWEDISH, "fi": _FINNISH, "ru": _RUSSIAN, "ro": _ROMANIAN, "tr": _TURKISH,
    "id": _INDONESIAN_MALAY, "ms": _INDONESIAN_MALAY, "hu": _HUNGARIAN, "el": _GREEK,
    "sr": _SERBO_CROATIAN, "hr": _SERBO_CROATIAN, "bs": _SERBO_CROATIAN, "lt": _LITHUANIAN,
    "ga": _IRISH, "eu": _BASQUE, "hy": _ARMENIAN, "ar": _ARABIC, "hi": _HINDI, "ne": _NEPALI,
    "ta": _TAMIL, "yi": _YIDDISH,
}  # fmt: skip
# engine.languages code -> its function words, as written.
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    code: frozenset(words.split()) for code, words in _BY_LANGUAGE.items()
}

__all__ = ["FUNCTION_WORDS"]
